"""Calibrating the ``cpu`` profile on first use, once per machine, by one process at a time.

Until the calibration probe (:mod:`workbench.profiler.calibrate`) has run on a machine, the
cost model's CPU predictions come from the quick probe's roofline terms, which miss most
kernels of the workbench's backend by more than 2x (issue 11). So the first command that
predicts CPU times calibrates first: ``workbench run`` and ``workbench plan`` on the cpu call
:func:`ensure_calibrated` before their work (with a one-line progress note), and
``workbench serve`` starts :class:`BackgroundCalibration`, the app saying "calibrating this
machine…" until it is done and then costing again. ``--no-calibrate`` or
``WORKBENCH_NO_CALIBRATE=1`` (:func:`disabled`; the test suite and CI set it) keep the quick
probe.

Two processes never both calibrate: the calibration runs under the profile's lock
(:func:`~workbench.costmodel.devices.profile_lock`, an ``flock`` on ``cpu_profile.lock`` beside
the profile); a process that finds the lock held waits for it and then reads the profile the
other wrote. The profile is written atomically (:func:`~workbench.costmodel.devices.
write_cpu_profile`), so no reader sees a half-written file.
"""

from __future__ import annotations

import os
import threading
import time

#: the environment variable that turns the calibration on first use off ("1", "yes", "true")
ENV_OFF = "WORKBENCH_NO_CALIBRATE"


def disabled() -> bool:
    """True when ``$WORKBENCH_NO_CALIBRATE`` is set to anything but ``""``, ``0``, ``no`` or
    ``false``."""
    return os.environ.get(ENV_OFF, "").strip().lower() not in ("", "0", "no", "false")


def needs_calibration() -> bool:
    """True when this machine's cached ``cpu`` profile is missing or not calibrated."""
    from workbench.costmodel.devices import cached_cpu_profile

    prof = cached_cpu_profile()
    return prof is None or not prof.calibration


def ensure_calibrated(progress=None, note=None, cache_dir=None) -> str:
    """Calibrate the ``cpu`` profile unless it is calibrated already (several minutes the first
    time: 399 s on a 2-core VM at load 1.6;
    :func:`~workbench.profiler.calibrate.refresh_cpu_profile`).

    Parameters
    ----------
    progress : callable(stage, k, n, message), optional
        The probe's progress.
    note : callable(str), optional
        Told, in one sentence, what happens: that this machine is being calibrated, or that
        another process is calibrating it and this one waits.
    cache_dir : path, optional
        The kernel cache of the probe's kernels (default: the workbench's).

    Returns
    -------
    str
        ``"cached"`` (it was calibrated), ``"waited"`` (another process calibrated it while
        this one waited for the lock) or ``"calibrated"`` (this call did).

    Raises
    ------
    OSError
        If the profile cannot be written to the workbench's cache directory.
    """
    from workbench.costmodel.devices import profile_lock
    from workbench.profiler.calibrate import calibrate_profile

    if not needs_calibration():
        return "cached"
    with profile_lock(blocking=False) as held:
        if held:
            if not needs_calibration():    # another process finished just before the lock
                return "waited"
            if note is not None:
                note("calibrating this machine's cpu profile once: micro-kernels of the CPU "
                     "backend, several minutes (about 7 on a 2-core machine; --no-calibrate "
                     "or WORKBENCH_NO_CALIBRATE=1 skips it)")
            calibrate_profile(progress, cache_dir)
            return "calibrated"
    if note is not None:
        note("another workbench process is calibrating this machine's cpu profile; waiting "
             "for it")
    with profile_lock(blocking=True):
        pass
    if needs_calibration():     # the other process failed or was stopped: calibrate here
        return ensure_calibrated(progress, note, cache_dir)
    return "waited"


def calibrate_in_process() -> None:
    """:func:`ensure_calibrated` in a process of its own (spawned, so that the probe's kernels
    do not share the interpreter, and its lock, with a server answering requests); waits for
    it.

    Raises
    ------
    RuntimeError
        If the process failed (its exit status; it printed its error on standard error).
    """
    import multiprocessing

    # a daemon: a server stopped meanwhile stops it too (its profile is then not written, and
    # the lock goes with the process)
    proc = multiprocessing.get_context("spawn").Process(target=_calibrate_quietly,
                                                        args=(os.getpid(),),
                                                        name="workbench-calibrate", daemon=True)
    proc.start()
    proc.join()
    if proc.exitcode != 0:
        raise RuntimeError(f"the calibration process exited with status {proc.exitcode}")


def _calibrate_quietly(parent: int | None = None) -> None:
    if parent is not None:
        _exit_with_parent(parent)
    ensure_calibrated()


def _exit_with_parent(parent: int, every_s: float = 1.0) -> None:
    """A daemon thread that ends this process when its parent ``parent`` (a pid) is gone: a
    server killed with SIGKILL runs no exit handler, and its calibration would otherwise
    probe on for minutes as an orphan (nothing is stored: the profile is written last)."""
    def watch():
        while True:
            time.sleep(every_s)
            if os.getppid() != parent:
                os._exit(3)

    threading.Thread(target=watch, name="exit-with-parent", daemon=True).start()


class BackgroundCalibration:
    """:func:`ensure_calibrated` in a thread of its own (what ``workbench serve`` starts when
    the cached ``cpu`` profile is not calibrated).

    ``state`` is ``"idle"`` (not started), ``"running"``, ``"done"`` or ``"failed"`` (``error``
    says why); ``on_done`` is called (in the thread) once the profile is calibrated, e.g. to
    drop costs computed with the quick probe. ``generation`` counts the calibrations finished
    here, so a page can tell that its costs are older than the profile.
    """

    def __init__(self, on_done=None, calibrate=None):
        self.on_done = on_done
        self._calibrate = calibrate or calibrate_in_process
        self.state = "idle"
        self.error = ""
        self.generation = 0
        self.started_at = self.finished_at = None
        self._thread = None

    def start(self) -> bool:
        """Start calibrating in the background if the profile needs it and calibration on
        first use is not :func:`disabled`; returns whether it started."""
        if self._thread is not None or disabled() or not needs_calibration():
            return False
        self.state, self.started_at = "running", time.time()
        self._thread = threading.Thread(target=self._run, name="calibrate-cpu", daemon=True)
        self._thread.start()
        return True

    def _run(self) -> None:
        try:
            self._calibrate()
        except Exception as exc:     # noqa: BLE001 (the app shows it; the server goes on)
            self.state, self.error = "failed", f"{type(exc).__name__}: {exc}"
            self.finished_at = time.time()
            return
        self.finished_at = time.time()
        if self.on_done is not None:
            self.on_done()
        self.generation += 1
        self.state = "done"

    def join(self, timeout: float | None = None) -> None:
        """Wait for the background calibration (tests; ``serve`` never waits)."""
        if self._thread is not None:
            self._thread.join(timeout)

    def status_text(self) -> str:
        """What the app says about it: ``""`` when nothing is running or failed."""
        if self.state == "running":
            return ("calibrating this machine… predictions will update (the cpu profile's "
                    "micro-kernels of the CPU backend, several minutes the first time; "
                    "until then the quick probe's roofline terms, which miss most kernels by "
                    "more than 2x)")
        if self.state == "failed":
            return (f"calibrating this machine failed ({self.error}); predictions use the "
                    "quick probe's roofline terms: `workbench devices --refresh` tries again")
        return ""
