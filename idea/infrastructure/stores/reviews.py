"""`.ideai/reviews/<reviewId>.json`: diff-review drafts (spec 07 §3), ignored by git (managed block)."""

from __future__ import annotations

import os
from pathlib import Path

from idea.domain.errors import CorruptFileError, invalid
from idea.domain.git.review import Review
from idea.domain.ids import is_uuid
from idea.domain.project import IDEAI_DIR
from idea.infrastructure.stores.document_file import DocumentFile, path_lock

REVIEWS_DIR = "reviews"


class JsonReviewStore:
    def folder(self, root: str) -> Path:
        return Path(root) / IDEAI_DIR / REVIEWS_DIR

    def _file(self, root: str, review_id: str) -> DocumentFile[Review]:
        if not is_uuid(review_id):
            raise invalid(f"{review_id!r} is not a review id")
        return DocumentFile(self.folder(root) / f"{review_id}.json", Review)

    def load(self, root: str, review_id: str) -> Review | None:
        return self._file(root, review_id).load_or_none()

    def save(self, root: str, review: Review) -> None:
        self._file(root, review.id).save(review)

    def list(self, root: str) -> tuple[list[Review], list[str]]:
        folder = self.folder(root)
        try:
            names = sorted(n for n in os.listdir(folder) if n.endswith(".json"))
        except FileNotFoundError:
            return [], []
        reviews: list[Review] = []
        problems: list[str] = []
        for name in names:
            review_id = name.removesuffix(".json")
            if not is_uuid(review_id):
                continue
            try:
                review = self.load(root, review_id)
            except CorruptFileError as exc:
                problems.append(exc.message)
                continue
            if review is not None:
                reviews.append(review)
        return reviews, problems

    def delete(self, root: str, review_id: str) -> None:
        document = self._file(root, review_id)
        with path_lock(document.path):
            try:
                document.path.unlink()
            except FileNotFoundError:
                pass
