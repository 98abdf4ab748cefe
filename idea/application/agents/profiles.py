"""The AI CLI profiles of this user: reference profiles overlaid with the shipped defaults, custom ones,
detection of the installed CLIs, and the first-run setup (nothing is presumed)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterable

from idea.application.agents.limit_patterns import LimitPatternCheck
from idea.application.agents.ports import CliDetector, Detection, LimitPatternReader, ProfileStore
from idea.application.ports import Host
from idea.application.preferences import Preferences
from idea.domain.errors import AppError, CorruptFileError, ErrorCode, PartlyReadFileError, invalid
from idea.domain.profile import Profile
from idea.domain.profile_book import ProfileBook


class ProfileCatalogue:
    def __init__(
        self,
        store: ProfileStore,
        detector: CliDetector,
        preferences: Preferences,
        host: Host,
        limit_patterns: LimitPatternReader,
    ) -> None:
        self._store = store
        self._detector = detector
        self.limit_patterns = LimitPatternCheck(limit_patterns)  # what the editor says of a limit pattern
        self._preferences = preferences
        self._host = host
        self.problems: list[str] = []  # told to the person at start-up
        self._book = self._load()

    def _load(self) -> ProfileBook:
        try:
            stored = self._store.load()
        except PartlyReadFileError as exc:
            self.problems.append(
                f"Some of your AI CLI profiles could not be read: {exc.message}. The others were kept. To get the "
                f"rest back, quit IdeA, repair the kept copy and move it back to {exc.path}."
            )
            stored = exc.document
        except CorruptFileError as exc:
            return self._start_from_reference_profiles(exc)
        if stored is None:
            return ProfileBook()
        return stored.overlay_reference_defaults(self._store.reference_profiles())

    def _start_from_reference_profiles(self, broken: CorruptFileError) -> ProfileBook:
        """`profiles.json` could not be read (it was kept aside): the person keeps working with the shipped
        profiles, stored so the next start does not ask the first-run questions again, and is told how to get
        their own profiles back."""
        book = ProfileBook(profiles=tuple(self._store.reference_profiles()))
        try:
            self._store.save(book)
        except OSError as exc:
            book_note = f" (they could not be saved: {exc.strerror or exc})"
        else:
            book_note = ""
        restore = "repair the kept copy and move it back to" if broken.kept_as else "repair"
        self.problems.append(
            f"Your AI CLI profiles could not be read: {broken.message}. IdeA started with its reference "
            f"profiles{book_note}. To get your own profiles back, quit IdeA, {restore} {broken.path}."
        )
        return book

    # -- queries (the book is an immutable snapshot) --

    def book(self) -> ProfileBook:
        return self._book

    def profiles(self) -> list[Profile]:
        return list(self._book.profiles)

    def reference_profiles(self) -> list[Profile]:
        return self._store.reference_profiles()

    def known(self) -> ProfileBook:
        """The person's profiles, then the reference profiles they never stored: every profile an agent's
        `profileId` can name (the reference profiles ship with IdeA, a cloned project's agents use them)."""
        stored = {profile.id for profile in self._book.profiles}
        shipped = tuple(p for p in self._store.reference_profiles() if p.id not in stored)
        return self._book.model_copy(update={"profiles": (*self._book.profiles, *shipped)})

    def profile(self, profile_id: str) -> Profile:
        profile = self._book.by_id(profile_id) or next(
            (p for p in self._store.reference_profiles() if p.id == profile_id), None
        )
        if profile is None:
            raise invalid(f"profile {profile_id} not found; choose another profile for this agent")
        return profile

    def needs_setup(self) -> bool:
        """The first-run wizard is due: no profile was ever chosen."""
        return self._store.load() is None or not self._preferences.settings.first_run_completed

    # -- detection --

    async def detect(self, profile: Profile) -> Detection:
        command = profile.detect or f"{profile.command} --version"
        return await asyncio.to_thread(self._detector.detect, command, self._host.environ())

    async def detect_all(self, profiles: Iterable[Profile]) -> dict[str, Detection]:
        """Each profile's detection, run in parallel (spec 02 §7)."""
        listed = list(profiles)
        results = await asyncio.gather(*(self.detect(profile) for profile in listed))
        return {profile.id: result for profile, result in zip(listed, results, strict=True)}

    # -- changes --

    def complete_setup(self, enabled: Iterable[Profile]) -> ProfileBook:
        """Store the profiles the user ticked in the wizard (and only those) and end the first run."""
        book = self._store.update(lambda current: _with_all(current, enabled))
        self._book = book.overlay_reference_defaults(self._store.reference_profiles())
        self._preferences.update_settings(first_run_completed=True)
        return self._book

    def save_profile(self, profile: Profile) -> ProfileBook:
        if not profile.name.strip() or not profile.command.strip():
            raise invalid("a profile needs a name and a command")
        refusal = self.limit_patterns.refusal(profile)
        if refusal is not None:
            raise invalid(refusal)
        self._book = self._store.update(lambda book: book.with_profile(profile)).overlay_reference_defaults(
            self._store.reference_profiles()
        )
        return self._book

    def delete_profile(self, profile_id: str, used_by: list[str]) -> ProfileBook:
        """Refused while agents use the profile (`used_by` names them, for the message)."""
        if used_by:
            raise AppError(
                ErrorCode.INVALID,
                f"the profile is used by {', '.join(used_by)}; give them another profile first",
                data={"agents": used_by},
            )
        self._book = self._store.update(lambda book: book.without(profile_id))
        return self._book


def _with_all(book: ProfileBook, profiles: Iterable[Profile]) -> ProfileBook:
    for profile in profiles:
        book = book.with_profile(profile)
    return book
