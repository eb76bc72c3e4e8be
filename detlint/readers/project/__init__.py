"""The project as a run sees it: which files it reads (git-aware discovery and its
exclusion rules), where a named config or dependency file's reach ends, detlint's
settings, pytest's config of each directory, what pytest collects, and which project of
a monorepo each test file belongs to.
"""
