#!/usr/bin/env python3
"""Runs edgemem-info and checks its output (stdlib only).

    check_info.py EDGEMEM_INFO MODE BACKEND
MODE: text (tables with the profile name every device and section), json (--json --no-profile),
json_profile (--json), usage (--help, bad options exit 2), lacking_caps (host_caps_env builds:
EDGEMEM_HOST_CAPS turns capabilities off and the output says "no").
BACKEND: the build's memory backend (host, opencl, cuda); --json must report it.
In cross builds Meson's MESON_EXE_WRAPPER (qemu-user) runs the tool."""
import json
import os
import re
import shlex
import subprocess
import sys

TYPES = ["image1d", "image1d_buffer", "image1d_array", "image2d", "image2d_array", "image3d"]
ACCESSES = ["read_only", "write_only", "read_write", "kernel_read_write"]
CAPS = {"images": bool, "image_from_buffer": bool, "image_from_sub_buffer": bool, "svm_coarse": bool,
        "svm_fine_buffer": bool, "svm_fine_system": bool, "svm_migration": bool, "max_fill_pattern_bytes": int,
        "fill_pattern_sizes": list, "external_memory": dict, "unified_memory": bool,
        "caller_memory_in_place": bool, "read_only_caller_memory_in_place": bool, "migration": bool, "sub_buffer_migration": bool,
        "host_access_flags": bool}
LIMITS = ["max_width_2d", "max_height_2d", "max_width_3d", "max_height_3d", "max_depth_3d",
          "max_array_size", "max_buffer_pixels", "pitch_align_pixels", "base_align_pixels"]
MEASURES = {"buffer_create_release": "us", "pool_acquire_release": "ns", "write_device": "MiB/s",
            "read_device": "MiB/s", "write_shared_map": "MiB/s", "read_shared_map": "MiB/s",
            "map_write_discard": "us", "map_read": "us"}
DEVICE_KEYS = {"platform_index", "device_index", "opened", "error", "backend", "name", "version", "driver",
               "api_version", "unified_memory", "base_align_bytes", "max_alloc_bytes", "global_mem_bytes",
               "capabilities", "image_limits", "image_formats", "profile"}
LACKING = "fill=0,migration=0,host_access_flags=0,unified_memory=0,images=0"

failures = []


def format_lists(text, header):
    """The --formats lists of the device whose section starts with `header`: {(type, access): names}."""
    start = text.find(header)
    if start < 0:
        return {}
    end = text.find("\nDevice ", start + 1)
    lists, key = {}, None
    for line in text[start:end if end >= 0 else len(text)].splitlines():
        m = re.match(r"^  (\w+), (\w+):$", line)
        if m:
            key = (m.group(1), m.group(2))
            lists[key] = set()
        elif key and line.startswith("    ") and line.strip():
            lists[key].update(line.split())
        else:
            key = None
    return lists


def check(cond, what):
    if not cond:
        failures.append(what)
    return cond


def is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def power_of_two(v):
    return is_int(v) and v > 0 and v & (v - 1) == 0


def run(exe, args, env=None):
    wrapper = shlex.split(os.environ.get("MESON_EXE_WRAPPER", ""))
    full_env = dict(os.environ)
    if env:
        full_env.update(env)
    p = subprocess.run(wrapper + [exe] + args, capture_output=True, env=full_env, timeout=220)
    return p.returncode, p.stdout.decode("utf-8"), p.stderr.decode("utf-8", "replace")


def check_error(e, where):
    check(isinstance(e, dict) and set(e) == {"code", "native", "message"}, f"{where}: error object keys")
    if isinstance(e, dict):
        check(isinstance(e.get("code"), str) and e.get("code"), f"{where}: error code")
        check(is_int(e.get("native")), f"{where}: error native code")
        check(isinstance(e.get("message"), str), f"{where}: error message")


def check_profile(p, where):
    keys = {"seconds", "buffer_bytes", "transfer_bytes", "pool_block_bytes", "pool_blocks", "measures"}
    if not check(isinstance(p, dict) and set(p) == keys, f"{where}: profile keys {sorted(p or {})}"):
        return
    check(isinstance(p["seconds"], (int, float)) and p["seconds"] > 0, f"{where}: profile seconds")
    for k in ["buffer_bytes", "transfer_bytes", "pool_block_bytes", "pool_blocks"]:
        check(is_int(p[k]) and p[k] > 0, f"{where}: profile {k} = {p[k]!r}")
    m = p["measures"]
    if not check(isinstance(m, dict) and set(m) == set(MEASURES), f"{where}: measure keys {sorted(m)}"):
        return
    for key, unit in MEASURES.items():
        e = m[key]
        w = f"{where}: measure {key}"
        if not check(set(e) == {"unit", "value", "best", "runs", "what", "error"}, f"{w}: keys {sorted(e)}"):
            continue
        check(e["unit"] == unit, f"{w}: unit {e['unit']!r}, expected {unit!r}")
        check(isinstance(e["what"], str) and len(e["what"]) > 10, f"{w}: what")
        check(e["error"] is None, f"{w}: failed: {e['error']}")
        if e["error"] is not None:
            check_error(e["error"], w)
            continue
        check(isinstance(e["value"], (int, float)) and e["value"] > 0, f"{w}: value {e['value']!r}")
        check(isinstance(e["best"], (int, float)) and e["best"] > 0, f"{w}: best {e['best']!r}")
        check(is_int(e["runs"]) and e["runs"] >= 3, f"{w}: runs {e['runs']!r}")
        if isinstance(e["value"], (int, float)) and isinstance(e["best"], (int, float)):
            if unit == "MiB/s":
                check(e["best"] >= e["value"] * 0.999, f"{w}: best bandwidth below the median")
            else:
                check(e["best"] <= e["value"] * 1.001, f"{w}: best time above the median")


def check_device(d, backend, profile, where):
    if not check(isinstance(d, dict), f"{where}: not an object"):
        return
    check(is_int(d.get("platform_index")) and d["platform_index"] >= 0, f"{where}: platform_index")
    check(is_int(d.get("device_index")) and d["device_index"] >= 0, f"{where}: device_index")
    if not d.get("opened"):
        check(d.get("opened") is False, f"{where}: opened")
        check_error(d.get("error"), where)
        return
    if not check(set(d) == DEVICE_KEYS, f"{where}: keys {sorted(set(d) ^ DEVICE_KEYS)} differ"):
        return
    check(d["error"] is None, f"{where}: error on an opened device")
    check(d["backend"] == backend, f"{where}: backend {d['backend']!r}")
    for k in ["name", "driver", "version"]:
        check(isinstance(d[k], str) and d[k], f"{where}: {k} empty")
    check(isinstance(d["api_version"], str) and re.fullmatch(r"\d+\.\d+", d["api_version"]),
          f"{where}: api_version {d['api_version']!r}")
    check(power_of_two(d["base_align_bytes"]), f"{where}: base_align_bytes {d['base_align_bytes']!r}")
    check(is_int(d["max_alloc_bytes"]) and d["max_alloc_bytes"] > 0, f"{where}: max_alloc_bytes")
    check(is_int(d["global_mem_bytes"]) and d["global_mem_bytes"] > 0, f"{where}: global_mem_bytes")
    if is_int(d["max_alloc_bytes"]) and is_int(d["global_mem_bytes"]):
        check(d["max_alloc_bytes"] <= d["global_mem_bytes"], f"{where}: max allocation above global memory")
    c = d["capabilities"]
    if not check(isinstance(c, dict) and set(c) == set(CAPS), f"{where}: capability keys"):
        return
    for k, t in CAPS.items():
        check(isinstance(c[k], t) and (t is bool or not isinstance(c[k], bool)), f"{where}: {k} type")
    check(d["unified_memory"] == c["unified_memory"], f"{where}: unified_memory twice, differently")
    fill = c["max_fill_pattern_bytes"]
    check(fill == 0 or (power_of_two(fill) and fill <= 128), f"{where}: max_fill_pattern_bytes {fill!r}")
    if is_int(fill):
        check(c["fill_pattern_sizes"] == [1 << i for i in range(8) if (1 << i) <= fill],
              f"{where}: fill_pattern_sizes {c['fill_pattern_sizes']!r}")
    check(set(c["external_memory"]) == {"dma_buf", "arm_import", "opaque_fd", "opaque_win32"} and
          all(isinstance(v, bool) for v in c["external_memory"].values()), f"{where}: external_memory")
    check(c["images"] or not (c["image_from_buffer"] or c["image_from_sub_buffer"]),
          f"{where}: image views without images")
    lim = d["image_limits"]
    if check(isinstance(lim, dict) and set(lim) == set(LIMITS), f"{where}: image_limits keys"):
        check(all(is_int(lim[k]) and lim[k] >= 0 for k in LIMITS), f"{where}: image limits not counts")
        if c["images"]:
            check(all(lim[k] > 0 for k in LIMITS[:7]), f"{where}: an image limit is 0 on a device with images")
        else:
            check(all(lim[k] == 0 for k in LIMITS), f"{where}: image limits without images")
        if c["image_from_buffer"]:
            check(power_of_two(lim["pitch_align_pixels"]), f"{where}: pitch_align_pixels")
            check(power_of_two(lim["base_align_pixels"]), f"{where}: base_align_pixels")
    f = d["image_formats"]
    if check(isinstance(f, dict) and set(f) == set(TYPES), f"{where}: image_formats types"):
        for t in TYPES:
            if not check(isinstance(f[t], dict) and set(f[t]) == set(ACCESSES), f"{where}: {t} accesses"):
                continue
            for a in ACCESSES:
                lst = f[t][a]
                check(isinstance(lst, list) and len(set(lst)) == len(lst), f"{where}: {t}/{a} list")
                check(all(isinstance(x, str) and re.fullmatch(r"[a-z]+/[a-z0-9_]+", x) for x in lst),
                      f"{where}: {t}/{a} names")
                if c["images"] and a != "kernel_read_write":
                    check(len(lst) > 0, f"{where}: no {t} formats for {a} on a device with images")
                if not c["images"]:
                    check(lst == [], f"{where}: {t}/{a} formats without images")
            if c["images"]:
                check("rgba/unorm_int8" in f[t]["read_only"], f"{where}: {t} lacks rgba/unorm_int8 (OpenCL minimum)")
    if profile:
        check_profile(d["profile"], where)
    else:
        check(d["profile"] is None, f"{where}: a profile with --no-profile")


def check_json(text, profile):
    try:
        doc = json.loads(text)
    except ValueError as e:
        check(False, f"--json output does not parse: {e}")
        return None
    top = {"tool", "schema", "edgemem_version", "backend", "allocator", "device_count", "error", "devices"}
    if not check(isinstance(doc, dict) and set(doc) == top, f"top-level keys {sorted(doc)}"):
        return doc
    check(doc["tool"] == "edgemem-info" and doc["schema"] == 1, "tool/schema")
    check(doc["backend"] == BACKEND, f"backend {doc['backend']!r}, this build's is {BACKEND!r}")
    check(doc["allocator"] in ("system", "static", "user"), f"allocator {doc['allocator']!r}")
    check(isinstance(doc["devices"], list), "devices is a list")
    opened = [d for d in doc["devices"] if isinstance(d, dict) and d.get("opened")]
    check(doc["device_count"] == len(opened), "device_count counts the opened devices")
    check(len(opened) >= 1, "no device opened")
    check(doc["error"] is None, f"top-level error {doc['error']!r}")
    for i, d in enumerate(doc["devices"]):
        check_device(d, doc["backend"], profile, f"device #{i}")
    return doc


BACKEND = None  # this build's memory backend (host, opencl, cuda): the third argument


def main():
    global BACKEND
    exe, mode, BACKEND = sys.argv[1], sys.argv[2], sys.argv[3]
    if mode in ("json", "json_profile"):
        args = ["--json"] if mode == "json_profile" else ["--json", "--no-profile"]
        rc, out, err = run(exe, args)
        check(rc == 0, f"exit status {rc}: {err}")
        doc = check_json(out, mode == "json_profile")
        if doc and mode == "json_profile":
            for d in doc["devices"]:
                if d.get("opened"):
                    print(f"device {d['platform_index']}:{d['device_index']} {d['name']}: profile "
                          f"{d['profile']['seconds']:.2f} s")
    elif mode == "text":
        rc, js, err = run(exe, ["--json", "--no-profile"])
        doc = check_json(js, False) if check(rc == 0, f"--json exit status {rc}: {err}") else None
        rc, out, err = run(exe, [])
        check(rc == 0, f"exit status {rc}: {err}")
        print(out)
        rc2, fmt, err2 = run(exe, ["--formats", "--no-profile"])
        check(rc2 == 0, f"--formats exit status {rc2}: {err2}")
        check("Profile" not in fmt, "--no-profile still printed a profile")
        for d in (doc or {}).get("devices", []):
            if not d.get("opened"):
                continue
            where = f"device {d['platform_index']}:{d['device_index']}"
            check(f"Device {d['platform_index']}:{d['device_index']}  {d['name']}" in out, f"{where} not in the tables")
            for section in ["Capabilities", "Profile", "buffer create+release", "pool acquire+release",
                            "write, device storage", "read, shared storage via map", "map+unmap, read"]:
                check(section in out, f"{where}: no '{section}' in the tables")
            check("n/a" not in out, "a profile measure failed (n/a in the tables)")
            if d["capabilities"]["images"]:
                check("Image formats" in out, f"{where}: no image format table")
                listed = format_lists(fmt, f"Device {d['platform_index']}:{d['device_index']}  ")
                for t in TYPES:
                    for a in ACCESSES:
                        want, got = set(d["image_formats"][t][a]), listed.get((t, a), set())
                        check(want == got, f"{where}: --formats lists {t}, {a} as {sorted(got)}, --json as {sorted(want)}")
    elif mode == "usage":
        rc, out, err = run(exe, ["--help"])
        check(rc == 0 and "usage: edgemem-info" in out, f"--help: exit {rc}, {out!r}")
        for bad in (["--bogus"], ["--json", "-x"], ["--device"], ["--device", "1"], ["--device", "a:b"], ["json"]):
            rc, out, err = run(exe, bad)
            check(rc == 2, f"{bad}: exit status {rc}, expected 2")
            check(out == "", f"{bad}: printed on stdout: {out!r}")
            check(err.startswith("edgemem-info: ") and "usage:" in err, f"{bad}: stderr {err!r}")
        rc, out, err = run(exe, ["--device", "31:63", "--no-profile"])
        check(rc == 1 and "Device 31:63  could not be opened: invalid_argument" in out,
              f"--device 31:63: exit status {rc}, {out!r}")
        rc, out, err = run(exe, ["--device", "0:0", "--no-profile", "--json"])
        doc = check_json(out, False) if check(rc == 0, f"--device 0:0 exit status {rc}: {err}") else None
        check(doc is not None and len(doc.get("devices", [])) == 1, "--device 0:0 reports one device")
    elif mode == "lacking_caps":
        env = {"EDGEMEM_HOST_CAPS": LACKING}
        rc, out, err = run(exe, ["--no-profile"], env)
        check(rc == 0, f"exit status {rc}: {err}")
        print(out)
        for label in ["unified memory", "images", "image from buffer", "image from sub-buffer", "fill pattern sizes",
                      "migration", "sub-buffer migration", "host access flags"]:
            check(re.search(rf"^  {re.escape(label)} +no$", out, re.M), f"'{label}' does not say no")
        check("Image formats" not in out, "an image format table without images")
        rc, js, err = run(exe, ["--json"], env)
        check(rc == 0, f"--json exit status {rc}: {err}")
        doc = check_json(js, True)
        for d in (doc or {}).get("devices", []):
            c = d.get("capabilities", {})
            check(not any(c.get(k) for k in ["images", "image_from_buffer", "image_from_sub_buffer", "unified_memory",
                                             "migration", "sub_buffer_migration", "host_access_flags"]),
                  f"caps still on: {c}")
            check(c.get("max_fill_pattern_bytes") == 0 and c.get("fill_pattern_sizes") == [], "fill still on")
        rc, out, err = run(exe, ["--no-profile"], {"EDGEMEM_HOST_CAPS": "fill=3"})
        check(rc == 1 and "no device: invalid_argument" in out, f"malformed EDGEMEM_HOST_CAPS: exit {rc}, {out!r}")
    else:
        check(False, f"unknown mode {mode}")
    for f in failures:
        print("FAIL:", f, file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
