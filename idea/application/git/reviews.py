"""Diff reviews (spec 07 §3): drafts of comments on a diff, sent to an agent as one human ticket
(`SubmitHumanInput`, spec 03 §11) through the project's orchestration gateway, then marked with the
ticket; a later diff gives a hint of which sent comments were addressed."""

from __future__ import annotations

from collections.abc import Sequence

from idea.application.git.access import RepoAccess
from idea.application.git.ports import GitRepository, ReviewStore
from idea.application.orchestrator.gateway import OrchestrationGateway
from idea.application.ports import Clock, IdGenerator
from idea.domain.errors import invalid, not_found
from idea.domain.git.diff import Diff
from idea.domain.git.review import (
    FileNow,
    Hint,
    Review,
    ReviewComment,
    ReviewTarget,
    address_hint,
    excerpt_of,
    ticket_text,
)
from idea.domain.orchestration.commands import Human, Source, SubmitHumanInput


class ReviewService:
    def __init__(self, access: RepoAccess, store: ReviewStore, clock: Clock, ids: IdGenerator) -> None:
        self._access = access
        self._store = store
        self._clock = clock
        self._ids = ids

    @property
    def _root(self) -> str:
        return self._access.root

    async def reviews(self) -> list[Review]:
        """The project's reviews, newest first. A broken file is kept aside and reported once."""
        found, problems = self._store.list(self._root)
        for problem in problems:
            self._access.diagnostics.beacon(f"[git] review file set aside: {problem}")
            self._access.problem(problem)
        return sorted(found, key=lambda r: r.created_at_ms, reverse=True)

    async def review(self, review_id: str) -> Review:
        found = self._store.load(self._root, review_id)
        if found is None:
            raise not_found(f"There is no review {review_id}.")
        return found

    async def review_for(self, diff: Diff) -> Review | None:
        """The newest review of the same comparison, so reopening a diff shows its comments again."""
        target = ReviewTarget.of(diff.spec)
        return next((r for r in await self.reviews() if r.target == target), None)

    async def start(self, diff: Diff) -> Review:
        """The review of this diff: the newest one of the same comparison, or a new draft."""
        existing = await self.review_for(diff)
        if existing is not None:
            return existing
        review = Review(
            id=self._ids.new_id(),
            base=diff.base_label,
            head=diff.head_label,
            created_at_ms=self._clock.now_ms(),
            target=ReviewTarget.of(diff.spec),
        )
        self._store.save(self._root, review)
        return review

    async def comment(
        self,
        review_id: str,
        *,
        path: str,
        side: str,
        line: int,
        hunk_header: str,
        line_text: str,
        text: str,
        comment_id: str | None = None,
    ) -> Review:
        """Add a comment anchored to {path, side, line, hunkHeader, excerpt}, or edit `comment_id`'s text.
        A sent comment is not edited: its text is what the agent received."""
        if side not in ("old", "new"):
            raise invalid("A comment is on the old or the new side of the diff.")
        review = await self.review(review_id)
        if comment_id is not None and review.comment(comment_id).sent:
            raise invalid("This comment was already sent; add a new one instead.")
        comment = ReviewComment(
            id=comment_id or self._ids.new_id(),
            path=path,
            side=side,  # type: ignore[arg-type]
            line=line,
            hunk_header=hunk_header,
            excerpt=excerpt_of(line_text),
            text=text.strip(),
        )
        return self._save(review.with_comment(comment))

    async def delete_comment(self, review_id: str, comment_id: str) -> Review:
        review = await self.review(review_id)
        return self._save(review.without_comment(comment_id))

    async def discard(self, review_id: str) -> None:
        self._store.delete(self._root, review_id)
        self._access.changed("review discarded")

    def preview(self, review: Review, comment_ids: Sequence[str] | None = None) -> str:
        """The ticket text that sending would deliver."""
        return ticket_text(review, self._to_send(review, comment_ids))

    async def send(
        self,
        review_id: str,
        agent_name: str,
        gateway: OrchestrationGateway,
        comment_ids: Sequence[str] | None = None,
    ) -> tuple[str, Review]:
        """Deliver the review's unsent comments (or `comment_ids`) to the agent as one human ticket; a
        stopped agent is started first. Returns the ticket id and the review with the comments marked."""
        review = await self.review(review_id)
        chosen = self._to_send(review, comment_ids)
        text = ticket_text(review, chosen)
        outcome = await gateway.dispatch(Human(), SubmitHumanInput(target=agent_name, text=text), Source.UI)
        ticket = str((outcome.data or {})["ticket"])
        marked = review.marked_sent([c.id for c in chosen if c.id], ticket, agent_name, self._clock.now_ms())
        self._save(marked)
        self._access.diagnostics.beacon(
            f"[git] review {review.id} sent to {agent_name} ticket={ticket} comments={len(chosen)}"
        )
        return ticket, marked

    async def hints(self, review: Review, diff: Diff) -> dict[str, Hint]:
        """For each sent comment (by id): did its line change since? Read against `diff`, a newer diff of the
        same comparison."""
        sent = [c for c in review.comments if c.sent and c.id]
        if not sent:
            return {}
        paths = sorted({c.path for c in sent if c.side == "new"})

        def read(repo: GitRepository) -> dict[str, str | None]:
            return {path: repo.read_new_side(diff.spec, path) for path in paths}

        texts = await self._access.run(read)
        result: dict[str, Hint] = {}
        for comment in sent:
            file = diff.file(comment.path)
            headers = frozenset(h.range_header for h in file.hunks) if file is not None else frozenset()
            text = texts.get(comment.path)
            lines = tuple(text.splitlines()) if text is not None else None
            now = None if file is None and comment.side == "old" else FileNow(lines, headers)
            assert comment.id is not None
            result[comment.id] = address_hint(comment, now)
        return result

    def _to_send(self, review: Review, comment_ids: Sequence[str] | None) -> list[ReviewComment]:
        if comment_ids is None:
            chosen = review.unsent()
        else:
            wanted = set(comment_ids)
            chosen = [c for c in review.comments if c.id in wanted]
        if not chosen:
            raise invalid("There is no unsent comment in this review.")
        return chosen

    def _save(self, review: Review) -> Review:
        self._store.save(self._root, review)
        self._access.changed("review")
        return review

