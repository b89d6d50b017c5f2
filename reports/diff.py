"""Run-to-run regressions: cells whose verdict changed between two runs."""

from __future__ import annotations

KEY = ("case", "adapter", "role")


def diff_runs(a: list[dict], b: list[dict]) -> list[dict]:
    """Cells (by case, adapter, role) whose verdict differs, or that exist in only one run."""
    old = {tuple(c[k] for k in KEY): c for c in a}
    new = {tuple(c[k] for k in KEY): c for c in b}
    out = []
    for key in sorted(old.keys() | new.keys()):
        va = old[key]["verdict"] if key in old else None
        vb = new[key]["verdict"] if key in new else None
        if va != vb:
            kind = ("regression" if va == "pass" and vb and vb.startswith("fail") else
                    "fix" if vb == "pass" and va and va.startswith("fail") else "change")
            out.append({**dict(zip(KEY, key, strict=True)), "before": va, "after": vb, "kind": kind,
                        "version_before": old.get(key, {}).get("version"),
                        "version_after": new.get(key, {}).get("version")})
    return out
