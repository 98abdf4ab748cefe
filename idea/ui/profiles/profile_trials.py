"""The profile pane's Detect and Test, on the profile as shown (its unsaved edits included): the version its
detect command prints, and its CLI started as an agent's would be — its program, arguments and variables — in
a scratch folder, in a cell of the window's project (spec 02 §7; `application/agents/profile_trial.py`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from idea.application.agents.ports import Detection
from idea.application.agents.profile_descriptions import install_hint
from idea.application.agents.profile_trial import TRIAL_LABEL, try_profile
from idea.application.agents.profiles import ProfileCatalogue
from idea.application.projects import ProjectRuntime
from idea.domain.profile import Profile
from idea.ui.core_client import CoreClient
from idea.ui.profiles.profile_pane import ProfilePane

TEST_TIP = (
    "Start this CLI as an agent's would start — its command, arguments and environment, as shown here — in a "
    "scratch folder, in a new cell of the current project, to see that it runs (no persona, no IdeA tools)"
)
NO_PROJECT_TIP = "Open a project first: the test runs in one of its cells"


class ShownProfile(Protocol):
    """What the trials ask the editor about the profile it shows."""

    @property
    def shown_id(self) -> str | None: ...

    def edited_profile(self) -> Profile:
        """The profile with its unsaved edits; ValueError when they cannot be read."""
        ...

    def current_profile(self) -> Profile | None:
        """The profile as stored; None for one not saved yet."""
        ...

    def failed(self, title: str) -> Callable[[BaseException], None]: ...


class ProfileTrials:
    def __init__(
        self,
        client: CoreClient,
        profiles: ProfileCatalogue,
        pane: ProfilePane,
        shown: ShownProfile,
        project: Callable[[], ProjectRuntime | None],
    ) -> None:
        self._client = client
        self._profiles = profiles
        self._pane = pane
        self._shown = shown
        self._project = project  # the window's current project, where a test runs
        pane.detect_button.clicked.connect(self.detect)
        pane.test_button.clicked.connect(self.test)

    def update(self, has_profile: bool) -> None:
        self._pane.detect_button.setEnabled(has_profile)
        project = self._project()
        self._pane.test_button.setEnabled(has_profile and project is not None)
        self._pane.test_button.setToolTip(TEST_TIP if project is not None else NO_PROJECT_TIP)

    def detect(self) -> None:
        profile = self._profile()
        if profile is None:
            return
        pane, shown_id = self._pane, self._shown.shown_id
        pane.detect_button.setEnabled(False)
        pane.detect_result.show_hint("detecting…")

        def done(detection: Detection) -> None:
            pane.detect_button.setEnabled(self._shown.shown_id is not None)
            if shown_id == self._shown.shown_id:
                pane.detect_result.show_detection(detection, install_hint(profile, detection))

        self._client.call(self._profiles.detect(profile), on_done=done, on_error=self._shown.failed("Detection failed"))

    def test(self) -> None:
        profile, runtime = self._profile(), self._project()
        if profile is None or runtime is None:
            return
        pane = self._pane
        pane.test_button.setEnabled(False)
        pane.detect_result.show_hint("starting…")

        def started(_session: object) -> None:
            self.update(self._shown.shown_id is not None)
            label = TRIAL_LABEL.format(name=profile.name)
            pane.detect_result.show_ok(f"Started in a new cell of {runtime.name} (“{label}”): close this window to see it")

        def failed(error: BaseException) -> None:
            self.update(self._shown.shown_id is not None)
            pane.detect_result.show_hint("")
            self._shown.failed("Test not started")(error)

        self._client.call(try_profile(runtime, profile), on_done=started, on_error=failed)

    def _profile(self) -> Profile | None:
        """The profile as shown; as stored when the edits cannot be read (said in the pane when neither)."""
        try:
            return self._shown.edited_profile()
        except ValueError:
            profile = self._shown.current_profile()
            if profile is None:
                self._pane.detect_result.show_error("Fix the profile first")
            return profile
