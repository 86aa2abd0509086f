"""A process's own peak memory, for tests that bound it in a fresh subprocess.

``getrusage(RUSAGE_SELF).ru_maxrss`` is not that on Linux: ``execve`` carries the parent's
high-water mark into the new program's (the kernel keeps the larger of the two), so a runner
started from a pytest worker that had grown to a gigabyte reports a gigabyte whatever it did
itself. ``VmHWM`` in ``/proc/self/status`` belongs to the new address space only; elsewhere
``ru_maxrss`` is the best there is (it is in bytes on macOS).

:data:`PEAK_MIB_CODE` is source text that defines ``peak_mib()`` in a runner script::

    >>> namespace: dict[str, object] = {}
    >>> exec(PEAK_MIB_CODE, namespace)
    >>> 1 < namespace["peak_mib"]() < 100_000  # type: ignore[operator]
    True
"""

from __future__ import annotations

import textwrap

PEAK_MIB_CODE = textwrap.dedent(
    """
    def peak_mib():
        import resource, sys
        try:
            with open("/proc/self/status") as status:
                for line in status:
                    if line.startswith("VmHWM:"):
                        return int(line.split()[1]) / 1024
        except OSError:
            pass
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        return peak / (1024 * 1024 if sys.platform == "darwin" else 1024)
    """
)
