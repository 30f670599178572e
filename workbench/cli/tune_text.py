"""The text of ``workbench tune`` and ``workbench sweep``: trials and rows as tables."""

from __future__ import annotations

from workbench.fmt import fmt_bytes, fmt_time, plural


def _t(x) -> str:
    return fmt_time(x) if x is not None else "-"


def _gain(x) -> str:
    return ("+" if x > 0 else "") + fmt_time(x) if x is not None else "-"


def tune_text(r, store_path=None) -> str:
    """What ``workbench tune`` prints: the start, each trial, the outcome, the misrankings."""
    lines = [f"tune {r.graph}: backend {r.backend}, cost model {r.device}, executor "
             f"{r.executor}; keep a variant when it saves more than {r.min_gain:.0%}"]
    if r.start_status != "ok":
        lines.append(f"the proposal could not be measured ({r.start_status}): "
                     f"{r.start_message}; no variant was tried")
        return "\n".join(lines)
    lines.append(f"proposal {r.start.fingerprint[:8]}: measured {_t(r.start_s)} per call "
                 f"(predicted {_t(r.start_predicted_s)})")
    if r.trials:
        lines.append(f"{'step':>4s}  {'change':<11s} {'pred. gain':>11s} {'meas. gain':>11s} "
                     f"{'measured':>10s}  ")
    for t in r.trials:
        if t.status != "ok":
            lines.append(f"{t.step:>4d}  {t.kind:<11s} {_gain(t.predicted_gain_s):>11s} "
                         f"{'-':>11s} {'-':>10s}  {t.description} — {t.status}: {t.message}")
            continue
        mark = "  KEPT" if t.kept else ""
        wrong = "  (cost model wrong)" if t.misranked(r.min_gain) else ""
        src = "" if t.fresh else "  [stored]"
        lines.append(f"{t.step:>4d}  {t.kind:<11s} {_gain(t.predicted_gain_s):>11s} "
                     f"{_gain(t.measured_gain_s):>11s} {_t(t.measured_s):>10s}  "
                     f"{t.description}{mark}{wrong}{src}")
    measured = sum(1 for t in r.trials if t.status == "ok")
    failed = len(r.trials) - measured
    if r.improved:
        lines.append(f"found: {r.best.fingerprint[:8]}, measured {_t(r.best_s)} per call, "
                     f"{r.gain:.2f}x faster than the proposal ({_t(r.start_s)}), predicted "
                     f"{_t(r.best_predicted_s)}")
    else:
        lines.append(f"no measured improvement over the proposal: {plural(measured, 'variant')} "
                     f"measured{f', {failed} failed' if failed else ''}, none faster by more "
                     f"than {r.min_gain:.0%}")
    if r.misranked:
        lines.append(f"the cost model's ranking was wrong for "
                     f"{plural(len(r.misranked), 'variant')} (steps "
                     f"{', '.join(str(t.step) for t in r.misranked)}): predicted "
                     f"faster, measured slower by more than {r.min_gain:.0%} of the base, "
                     "or the reverse")
    within = [t for t in r.trials if t.status == "ok" and not t.misranked(r.min_gain)
              and t.measured_gain_s is not None and t.predicted_gain_s is not None
              and t.measured_gain_s != 0 and (t.measured_gain_s > 0) != (t.predicted_gain_s > 0)]
    if within:
        word = "more variant" if r.misranked else "variant"
        lines.append(f"{plural(len(within), word)} (steps "
                     f"{', '.join(str(t.step) for t in within)}) measured the other way than "
                     f"predicted, by less than {r.min_gain:.0%} of the base: within the noise "
                     "margin, not counted as wrong")
    if r.misordered_pairs:
        lines.append(f"{plural(len(r.misordered_pairs), 'pair')} of measured plans (any two "
                     "plans measured, not only a variant against its base) are in the wrong "
                     f"order by the prediction, by more than {r.min_gain:.0%}")
    lines.append(f"measurements: {r.fresh} fresh, {r.reused} from the results store"
                 + (f" ({store_path})" if store_path else "") + f"; {r.seconds:.1f} s")
    return "\n".join(lines)


def sweep_text(r) -> str:
    """What ``workbench sweep`` prints: one row per combination."""
    lines = [f"sweep: {plural(len(r.rows), 'combination')} on backend {r.backend}, executor "
             f"{r.executor}; {r.fresh} plans measured now, {r.reused} from the results store; "
             f"{r.seconds:.1f} s",
             f"{'graph':<20s} {'policy':<9s} {'device':<34s} {'kernels':>7s} {'predicted':>10s} "
             f"{'measured':>10s} {'peak mem':>10s}  plan"]
    for row in r.rows:
        status = "" if row.status == "ok" else f"  {row.status}: {row.message}"
        lines.append(f"{row.graph[:20]:<20s} {row.policy:<9s} {row.device[:34]:<34s} "
                     f"{row.kernels:>7d} {_t(row.predicted_s):>10s} {_t(row.measured_s):>10s} "
                     f"{fmt_bytes(row.peak_bytes):>10s}  {row.plan_fingerprint[:8]}"
                     f"{'' if row.fresh else ' [stored]'}{status}")
    return "\n".join(lines)
