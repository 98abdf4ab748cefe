"""Editing the persona templates shared by every project (Agents ▸ Templates, Save as template): naming
rules, loading and saving them, and bringing the agents kept in sync in the open projects along when a
template's body changes."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from idea.application.agents.catalogue import ProjectTeam
from idea.application.agents.profiles import ProfileCatalogue
from idea.application.agents.templates import TemplateCatalogue
from idea.domain.errors import AppError
from idea.domain.template import TemplateRecord

TEMPLATE_NAME_HINT = "Templates are shared by all your projects."


def template_name_problem(name: str, taken_names: Iterable[str]) -> str | None:
    """Why a new template cannot be called `name` (already stripped), or None when it can."""
    if not name:
        return "A template needs a name."
    if name.casefold() in {taken.casefold() for taken in taken_names}:
        return f"A template named “{name}” already exists."
    return None


@dataclass(frozen=True)
class StoredTemplate:
    record: TemplateRecord
    body: str


@dataclass(frozen=True)
class LoadedTemplates:
    templates: list[StoredTemplate]
    profile_names: dict[str, str]

    def profile_label(self, profile_id: str | None) -> str:
        """How a template's default profile is named in the list."""
        if profile_id is None:
            return "—"
        return self.profile_names.get(profile_id) or f"profile {profile_id[:8]}"


@dataclass
class Draft:
    """A template being written in the dialog, stored only when saved."""

    name: str
    description: str
    body: str
    default_profile_id: str | None


@dataclass(frozen=True)
class SaveOutcome:
    record: TemplateRecord
    version_raised: bool
    followers: list[tuple[str, list[str]]]  # (project name, agents that took the new body)
    sync_failures: list[tuple[str, AppError | OSError]]  # (project name, why its agents were not updated)


# -- work done on the core loop --


async def load_templates(templates: TemplateCatalogue, profiles: ProfileCatalogue | None) -> LoadedTemplates:
    stored = [StoredTemplate(record, templates.body(record.id)) for record in templates.templates()]
    names: dict[str, str] = {}
    if profiles is not None:
        # Starter templates propose a reference profile the user may not have set up.
        names = {profile.id: f"{profile.name} (not set up)" for profile in profiles.reference_profiles()}
        names.update({profile.id: profile.name for profile in profiles.profiles()})
    return LoadedTemplates(stored, names)


async def save_template(
    templates: TemplateCatalogue,
    open_projects: Callable[[], Iterable[ProjectTeam]],
    template_id: str,
    body: str,
    description: str,
) -> SaveOutcome:
    """Store the edits, then bring every synchronised agent of the open projects to the new version."""
    previous = templates.template(template_id)
    record = templates.update(template_id, body, description=description)
    if previous is None or record.version == previous.version:
        return SaveOutcome(record, version_raised=False, followers=[], sync_failures=[])
    followers: list[tuple[str, list[str]]] = []
    failures: list[tuple[str, AppError | OSError]] = []
    for project in open_projects():
        # The template is saved whatever happens here: one project failing must not hide the others.
        try:
            updated = await project.agents.sync_templates()
        except (AppError, OSError) as exc:
            failures.append((project.name, exc))
            continue
        if updated:
            followers.append((project.name, updated))
    return SaveOutcome(record, version_raised=True, followers=followers, sync_failures=failures)


async def create_template(templates: TemplateCatalogue, draft: Draft) -> TemplateRecord:
    return templates.create(draft.name, draft.description, draft.body, draft.default_profile_id)


async def delete_template(templates: TemplateCatalogue, template_id: str) -> None:
    templates.delete(template_id)


# -- what the dialog says --


def joined_names(names: list[str]) -> str:
    """"QA", "QA and Git", "QA, Git and Docs"."""
    if len(names) <= 1:
        return "".join(names)
    return f"{', '.join(names[:-1])} and {names[-1]}"


def followers_sentence(followers: list[tuple[str, list[str]]], version: int) -> str:
    """"QA and Git now follow v3." — projects are named only when agents of several projects followed."""
    if not followers:
        return "No agent of the open projects is kept in sync with it."
    if len(followers) == 1:
        names = followers[0][1]
        verb = "follows" if len(names) == 1 else "follow"
        return f"{joined_names(names)} now {verb} v{version}."
    groups = [f"{joined_names(names)} ({project})" for project, names in followers]
    return f"{', '.join(groups)} now follow v{version}."


def free_template_name(base: str, taken_names: Iterable[str]) -> str:
    """`base`, else `base 2`, `base 3`… — the first not taken (case does not count)."""
    taken = {name.casefold() for name in taken_names}
    name, number = base, 2
    while name.casefold() in taken:
        name = f"{base} {number}"
        number += 1
    return name


def template_users(projects: Iterable[ProjectTeam], template_id: str) -> list[str]:
    """The agents of the open projects made from this template, marking those kept in sync."""
    projects = list(projects)
    users = []
    for project in projects:
        for agent in project.agents.manifest().agents:
            if agent.template_id != template_id:
                continue
            notes = [project.name] if len(projects) > 1 else []
            if agent.synchronized:
                notes.append("kept in sync")
            users.append(f"{agent.name} ({', '.join(notes)})" if notes else agent.name)
    return users


async def template_names(templates: TemplateCatalogue) -> list[str]:
    """The names already taken, for a new template's name check."""
    return [template.name for template in templates.templates()]
