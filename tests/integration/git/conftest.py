from tests.git_support import git_home, git_world_factory  # noqa: F401  (fixtures)
