"""The attribute report's JSON of schema 5 (0.1) in schema 6's (0.2) words.

same_figures.py compares a 0.1 binary's report with a 0.2 binary's field by field. 0.2
renamed the summary's fields to the levels every source shares (CHANGELOG.md, 0.2.0),
so the old document is first rewritten key for key into the new one: every number it
held reaches the comparison under its new name, and two keys that held one number
(median_dispatches_per_token and median_submissions_per_token) must agree. What 0.2
adds beside them (NEW_KEYS) is left out of the new document, since the old binary never
wrote it; the added per-trial lists are checked against the old medians' inputs where
the old report had them.
"""

# Keys schema 6 writes that schema 5 had no figure for, by the object that holds them.
NEW_KEYS = {
    "level": {"median_items_per_token", "mean_us_per_call", "gpu_us_per_token_per_trial", "trials_with",
              "median_host_us_per_token"},
    "source_counts": {"rows", "events", "shader_timeline_rows"},
}


class SchemaError(ValueError):
    """The old document is not a schema 5 report as 0.1 wrote it."""


def _same(doc, keys, where):
    """The value every key of `keys` holds in `doc` (they must agree); removes them."""
    values = [doc.pop(k) for k in keys if k in doc]
    if any(v != values[0] for v in values[1:]):
        raise SchemaError(f"{where}: {', '.join(keys)} disagree: {values}")
    return values[0] if values else None


def _renamed(doc, names):
    """`doc` with each key renamed by `names` (others kept), keys sorted as perfgate
    writes every object but a bands object."""
    return {names.get(k, k): v for k, v in sorted(doc.items(), key=lambda kv: names.get(kv[0], kv[0]))}


def _bucket(b, where):
    b = dict(b)
    b["median_items_per_token"] = _same(b, ["median_dispatches_per_token", "median_submissions_per_token"], where)
    return _renamed(b, {"median_p50_us_per_dispatch": "median_p50_us_per_item"})


def _family(f):
    return _renamed(f, {"median_encoders_per_token": "median_calls_per_token"})


def _phase(p, where):
    p = dict(p)
    items = _same(p, ["median_dispatches_per_token", "median_submissions_per_token"], where)
    p = _renamed(p, {"median_cbs_per_token": "median_calls_per_token", "mean_us_per_cb": "mean_us_per_call"})
    p["median_items_per_token"] = items
    return dict(sorted(p.items()))


def _trial(t, metal, where):
    """A trial; `metal` says whether its pairing counts are the source's: the kernel
    sources wrote Metal's pairing counts as zeros, which 0.2 no longer writes."""
    t = dict(t)
    t["items_per_token"] = _same(t, ["dispatches_per_token", "submissions_per_token"], where)
    counts = {}
    for key in ("unpaired_ends", "leftover_starts", "duplicate_starts", "gpu_intervals_union_ns"):
        value = t.pop(key, None)
        if value is None:
            continue
        if not metal and key != "gpu_intervals_union_ns":
            if value != 0:
                raise SchemaError(f"{where}: {key} is {value} for a kernel source")
            continue
        counts[key] = value
    t["source_counts"] = dict(sorted(counts.items()))
    t["excluded"] = _renamed(t["excluded"], {"unmapped": "no_owner", "unattributed": "unnamed_owner"})
    return _renamed(t, {"paired": "items_read", "submissions": "items"})


def _engine(e, metal, where):
    e = dict(e)
    e["median_items_per_token"] = _same(e, ["median_dispatches_per_token", "median_submissions_per_token"], where)
    e["buckets"] = {n: _bucket(b, f"{where}/buckets/{n}") for n, b in e["buckets"].items()}
    e["encoder_gpu"] = {n: _family(f) for n, f in e["encoder_gpu"].items()}
    e["cb_label_gpu"] = {n: _phase(p, f"{where}/cb_label_gpu/{n}") for n, p in e["cb_label_gpu"].items()}
    timeline_rows = e.pop("shader_timeline_rows", 0)
    e["trials"] = [_trial(t, metal, f"{where}/trials/{i}") for i, t in enumerate(e["trials"])]
    e["_shader_timeline_rows"] = timeline_rows  # checked against the trials' counts
    return _renamed(e, {"encoder_gpu": "families", "cb_label_gpu": "phases", "kernel_names": "kernels",
                        "shader_registry": "kernel_registry"})


def _comparison(c):
    if c is None:
        return None
    c = dict(c)
    s = c.pop("submissions_per_token")
    c["items_per_token"] = dict(sorted((k.replace("submissions", "items"), v) for k, v in s.items()))
    return _renamed(c, {"kernel_names": "kernels"})


def upgrade(doc):
    """The schema 5 attribute report `doc` in schema 6's keys; other documents as they are."""
    if not isinstance(doc, dict) or doc.get("schema_version") != 5 or "engines" not in doc:
        return doc
    doc = dict(doc)
    doc["schema_version"] = 6
    metal = doc.get("source") == "metal"
    doc["engines"] = {n: _engine(e, metal, f"/engines/{n}") for n, e in doc["engines"].items()}
    doc["comparison"] = _comparison(doc.get("comparison"))
    doc["units"] = _renamed(doc["units"], {"submission": "item"})
    return doc


def _drop_new(doc, old):
    """The new document less what schema 5 could not have held, after checking the
    per-trial source counts against the old engine's shader_timeline_rows."""
    doc = dict(doc)
    engines = {}
    for name, e in doc["engines"].items():
        e = dict(e)
        was = old["engines"].get(name, {}).pop("_shader_timeline_rows", None)
        trials = []
        rows = 0
        for t in e["trials"]:
            t = dict(t)
            counts = dict(t["source_counts"])
            rows = max(rows, counts.get("shader_timeline_rows", 0))
            t["source_counts"] = {k: v for k, v in counts.items() if k not in NEW_KEYS["source_counts"]}
            trials.append(t)
        if was is not None and was != rows:
            raise SchemaError(f"/engines/{name}: shader_timeline_rows {was} before, {rows} in the trials after")
        e["trials"] = trials
        for level in ("families", "phases"):
            e[level] = {n: {k: v for k, v in item.items() if k not in NEW_KEYS["level"] or k in old["engines"].get(
                name, {}).get(level, {}).get(n, {})} for n, item in e[level].items()}
        engines[name] = e
    doc["engines"] = engines
    return doc


def comparable(before, after):
    """(before, after) ready for a field-by-field comparison: a schema 5 attribute
    report before and a schema 6 one after become the same keys; any other pair is
    returned as it is."""
    if not (isinstance(before, dict) and isinstance(after, dict)):
        return before, after
    if before.get("schema_version") != 5 or after.get("schema_version") != 6 or "engines" not in before:
        return before, after
    old = upgrade(before)
    return old, _drop_new(after, old)


def self_test():
    """Problems found when a tiny schema 5 report is rewritten (empty when none): the
    rewrite must equal the schema 6 report of the same figures, a changed figure must
    still show, and two old keys of one figure that disagree must be an error."""
    old = {"schema_version": 5, "source": "trace_json", "units": {"submission": "one kernel", "time": "µs"},
           "comparison": None,
           "engines": {"e": {"median_dispatches_per_token": 2.5, "median_submissions_per_token": 2.5,
                             "buckets": {"b": {"median_dispatches_per_token": 1, "median_submissions_per_token": 1,
                                               "median_p50_us_per_dispatch": 3, "median_us_per_token": 4}},
                             "encoder_gpu": {"gemm": {"median_encoders_per_token": 1, "median_gpu_us_per_token": 5,
                                                      "median_host_us_per_token": 0}},
                             "cb_label_gpu": {}, "kernel_names": {}, "shader_registry": {}, "shader_timeline_rows": 0,
                             "trials": [{"paired": 9, "submissions": 8, "dispatches_per_token": 2.5,
                                         "submissions_per_token": 2.5, "unpaired_ends": 0, "leftover_starts": 0,
                                         "duplicate_starts": 0, "gpu_intervals_union_ns": None,
                                         "excluded": {"other_process": 1, "unmapped": 0, "unattributed": 0,
                                                      "outside_window": 2}}]}}}
    new = {"schema_version": 6, "source": "trace_json", "units": {"item": "one kernel", "time": "µs"},
           "comparison": None,
           "engines": {"e": {"median_items_per_token": 2.5,
                             "buckets": {"b": {"median_items_per_token": 1, "median_p50_us_per_item": 3,
                                               "median_us_per_token": 4}},
                             "families": {"gemm": {"median_calls_per_token": 1, "median_gpu_us_per_token": 5,
                                                   "median_host_us_per_token": 0, "median_items_per_token": 3,
                                                   "trials_with": 1}},
                             "phases": {}, "kernels": {}, "kernel_registry": {},
                             "trials": [{"items_read": 9, "items": 8, "items_per_token": 2.5,
                                         "source_counts": {"events": 40},
                                         "excluded": {"other_process": 1, "no_owner": 0, "unnamed_owner": 0,
                                                      "outside_window": 2}}]}}}
    import copy
    problems = []
    before, after = comparable(copy.deepcopy(old), copy.deepcopy(new))
    if json_text(before) != json_text(after):
        problems.append(f"the same figures differ after the rewrite:\n{json_text(before)}\n{json_text(after)}")
    changed = copy.deepcopy(new)
    changed["engines"]["e"]["trials"][0]["excluded"]["no_owner"] = 1
    before, after = comparable(copy.deepcopy(old), changed)
    if json_text(before) == json_text(after):
        problems.append("a changed excluded count (unmapped 0, no_owner 1) compares equal")
    disagree = copy.deepcopy(old)
    disagree["engines"]["e"]["median_submissions_per_token"] = 2.0
    try:
        comparable(disagree, copy.deepcopy(new))
        problems.append("median_dispatches_per_token 2.5 beside median_submissions_per_token 2.0 was accepted")
    except SchemaError:
        pass
    return problems


def json_text(doc):
    import json
    return json.dumps(doc, ensure_ascii=False, sort_keys=True)
