"""The detection model: how retry, soft-fail and quarantine knobs turn a
violation's per-trial rate into the chance that CI reports it.

Pure functions and frozen values, no I/O: everything else in detlint trusts
these numbers, and the tests check every one of them against simulation.
"""

from detlint.model.evidence import RateEstimate, estimate_rate
from detlint.model.gate import (
    ALLOW_FAILURE,
    BLOCKING,
    CONTINUE_ON_ERROR,
    MASKED_EXIT,
    SKIP,
    SOFT_FAIL,
    STRICT_XFAIL,
    SWALLOWED,
    XFAIL,
    XFAIL_UNCHECKED,
    Gate,
)
from detlint.model.layers import FlakyRuns, JobRetries, Layer, Repeat, Reruns, StrictXfail
from detlint.model.policy import Policy
from detlint.model.threshold import Threshold

__all__ = [
    "ALLOW_FAILURE",
    "BLOCKING",
    "CONTINUE_ON_ERROR",
    "MASKED_EXIT",
    "SKIP",
    "SOFT_FAIL",
    "STRICT_XFAIL",
    "SWALLOWED",
    "XFAIL",
    "XFAIL_UNCHECKED",
    "FlakyRuns",
    "Gate",
    "JobRetries",
    "Layer",
    "Policy",
    "RateEstimate",
    "Repeat",
    "Reruns",
    "StrictXfail",
    "Threshold",
    "estimate_rate",
]
