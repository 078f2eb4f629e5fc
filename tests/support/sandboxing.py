"""Whether this machine gives a confined agent its private view (mount namespaces), found by trying."""

from __future__ import annotations

import functools
import subprocess

from acphost.host import _namespace


@functools.cache
def private_view() -> tuple[bool, str]:
    """Whether a child here really gets its private view, and why not.

    Tried with ``/bin/true``, not guessed from the system's switches: a
    container's seccomp filter refuses ``unshare`` without saying so beforehand.
    """
    usable, why = _namespace.namespace_support()
    if not usable:
        return False, why
    plan = _namespace.NamespacePlan(())
    try:
        subprocess.run(["/bin/true"], preexec_fn=plan.preexec(), check=True, timeout=30)
        if plan.outcome[0] != _namespace.PRIVATE:
            return False, "the kernel refused a user or mount namespace"
        return True, ""
    except (OSError, subprocess.SubprocessError) as exc:
        return False, f"a namespace could not be set up: {exc}"
    finally:
        plan.close()
