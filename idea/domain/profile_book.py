"""`<user-data>/profiles.json`: the stored profiles, and the shipped values of reference profiles laid over
every field the user never edited."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from idea.domain.documents import CamelDocument
from idea.domain.errors import not_found
from idea.domain.profile import Profile

_NEVER_OVERLAID = frozenset({"id", "edited"})


def _overlaid(stored: Profile, shipped: Profile) -> Profile:
    data = stored.to_json()
    shipped_data = shipped.to_json()
    edited = set(stored.edited)
    for name, field in Profile.model_fields.items():
        key = field.alias or name
        if key in _NEVER_OVERLAID or key in edited:
            continue
        if key in shipped_data:
            data[key] = shipped_data[key]
        else:
            data.pop(key, None)
    return Profile.from_json(data)


class ProfileBook(CamelDocument):
    """`<user-data>/profiles.json`."""

    version: int = 1
    profiles: tuple[Profile, ...] = ()

    def to_json(self) -> dict[str, Any]:
        extra = self.model_extra or {}
        return {"version": self.version, "profiles": [profile.to_json() for profile in self.profiles], **extra}

    def by_id(self, profile_id: str) -> Profile | None:
        return next((profile for profile in self.profiles if profile.id == profile_id), None)

    def with_profile(self, profile: Profile) -> ProfileBook:
        """Replace the profile with the same id, or append it."""
        if self.by_id(profile.id) is None:
            return self.model_copy(update={"profiles": (*self.profiles, profile)})
        return self.model_copy(
            update={"profiles": tuple(profile if p.id == profile.id else p for p in self.profiles)}
        )

    def without(self, profile_id: str) -> ProfileBook:
        if self.by_id(profile_id) is None:
            raise not_found(f"profile {profile_id} not found", profileId=profile_id)
        return self.model_copy(update={"profiles": tuple(p for p in self.profiles if p.id != profile_id)})

    def overlay_reference_defaults(self, shipped: Iterable[Profile]) -> ProfileBook:
        """Stored reference profiles take the shipped value of every field the user never edited.

        Custom profiles, and reference profiles the user never stored, are left as they are.
        """
        shipped_by_id = {profile.id: profile for profile in shipped}
        overlaid = tuple(
            _overlaid(profile, shipped_by_id[profile.id]) if profile.id in shipped_by_id else profile
            for profile in self.profiles
        )
        return self.model_copy(update={"profiles": overlaid})
