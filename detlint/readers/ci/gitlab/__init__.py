"""GitLab CI: jobs assembled from included files, ``default:``, ``extends:`` and anchors,
with ``allow_failure`` and ``retry`` read where they are written.
"""
