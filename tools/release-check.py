#!/usr/bin/env python3
"""Checks what the MCP registry and the package registries read from this repository.

    python3 tools/release-check.py                  # check; exit 0 when all holds, 1 when not
    python3 tools/release-check.py --set-owner NAME  # replace the owner everywhere, then check

Checks, each failure said in one line:

* server.json against tools/server.schema.json, the constraints of the registry's published
  schema (version 2025-12-11; the URL is in that file), with the `jsonschema` package;
* the registry's own rules the schema leaves out (modelcontextprotocol/registry,
  internal/validators): exact package versions (no range, not "latest"), no fileSha256 outside
  mcpb packages; and ours: a `pypi` and a `cargo` package named as in Cargo.toml and
  pyproject.toml, at Cargo.toml's version, on stdio, started as `tmuxwire mcp`;
* every environment variable server.json lists is one the program reads (a string literal in
  src/), but for those in PENDING;
* README.md shows `mcp-name: <server name>` as visible text (outside HTML comments, which the
  package registries' README rendering drops), followed by a space or the end of the line: the
  registry proves ownership of the PyPI and cargo packages by finding it in their README;
* one owner everywhere: `io.github.OWNER/NAME` in server.json and `https://github.com/OWNER/NAME`
  in server.json, Cargo.toml and pyproject.toml. The repository has no public home yet, so OWNER
  is the placeholder `tmuxwire-owner` until `--set-owner` names the real one.

Needs Python 3.11+ (tomllib) and jsonschema (.ci/run runs it in tests/dropin's venv).
"""

import argparse
import json
import re
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# Variables server.json documents before the program reads them: another change adds them.
# A name here that the source already reads is fine (the entry is then only stale).
PENDING = {"TMUXWIRE_REDACT": "redaction (issue 29, point 6)"}

# Where the owner is written, as regular expressions whose group 1 is the owner.
OWNER_PLACES = {
    "server.json": [r'"name": "io\.github\.([A-Za-z0-9-]+)/tmuxwire"',
                    r'"url": "https://github\.com/([A-Za-z0-9-]+)/tmuxwire"'],
    "README.md": [r"mcp-name: io\.github\.([A-Za-z0-9-]+)/tmuxwire"],
    "Cargo.toml": [r'repository = "https://github\.com/([A-Za-z0-9-]+)/tmuxwire"'],
    "pyproject.toml": [r'Repository = "https://github\.com/([A-Za-z0-9-]+)/tmuxwire"'],
}

VERSION_RANGE = re.compile(r"^[\^~<>=]|\.[x*](\.|$)|[ ,|]")


def schema_errors(server):
    try:
        import jsonschema
    except ImportError:
        return ["the jsonschema package is not installed: pip install jsonschema"]
    schema = json.loads((ROOT / "tools/server.schema.json").read_text())
    validator = jsonschema.Draft7Validator(schema, format_checker=jsonschema.FormatChecker())
    return [
        f"server.json{''.join(f'[{p!r}]' for p in e.absolute_path)}: {e.message}"
        for e in sorted(validator.iter_errors(server), key=lambda e: list(map(str, e.path)))
    ]


def rule_errors(server, cargo, pyproject):
    errors = []
    crate = cargo["package"]["name"]
    version = cargo["package"]["version"]
    wheel = pyproject["project"]["name"]
    if server.get("version") != version:
        errors.append(f"server.json: version {server.get('version')!r}, Cargo.toml says {version!r}")
    packages = server.get("packages", [])
    kinds = [p.get("registryType") for p in packages]
    for kind in ("pypi", "cargo"):
        if kinds.count(kind) != 1:
            errors.append(f"server.json: {kinds.count(kind)} packages of registryType {kind!r}, want 1")
    for p in packages:
        kind = p.get("registryType")
        where = f"server.json: the {kind} package"
        want = {"pypi": wheel, "cargo": crate}.get(kind)
        if want is not None and p.get("identifier") != want:
            errors.append(f"{where}: identifier {p.get('identifier')!r}, want {want!r}")
        v = p.get("version", "")
        if v != version:
            errors.append(f"{where}: version {v!r}, Cargo.toml says {version!r}")
        if v == "latest" or VERSION_RANGE.search(v):
            errors.append(f"{where}: version {v!r} is not one exact version")
        if "fileSha256" in p and kind != "mcpb":
            errors.append(f"{where}: fileSha256 is for mcpb packages only")
        if p.get("transport", {}).get("type") != "stdio":
            errors.append(f"{where}: transport {p.get('transport')!r}, want stdio")
        args = [a.get("value") for a in p.get("packageArguments", [])]
        if args[:1] != ["mcp"]:
            errors.append(f"{where}: packageArguments start {args[:1]!r}, want ['mcp']")
    return errors


def source_text():
    return "\n".join(p.read_text() for p in sorted((ROOT / "src").rglob("*.rs")))


def env_errors(server):
    source = source_text()
    errors = []
    for p in server.get("packages", []):
        for var in p.get("environmentVariables", []):
            name = var.get("name", "")
            if f'"{name}"' not in source and name not in PENDING:
                errors.append(f"server.json: {name} is not read anywhere in src/")
    return errors


def readme_errors(server):
    name = server.get("name", "")
    text = (ROOT / "README.md").read_text()
    visible = re.sub(r"<!--.*?-->", "", text, flags=re.S)
    token = re.compile(r"mcp-name: " + re.escape(name) + r"(?=[ \t]|$)", re.M)
    if not token.search(visible):
        return [f"README.md: no visible line 'mcp-name: {name}' (outside HTML comments, "
                "followed by a space or the line's end)"]
    return []


def owners():
    found = {}
    for file, patterns in OWNER_PLACES.items():
        text = (ROOT / file).read_text()
        for pattern in patterns:
            for m in re.finditer(pattern, text):
                found.setdefault(m.group(1), []).append(file)
            if not re.search(pattern, text):
                found.setdefault(None, []).append(f"{file} ({pattern})")
    return found


def owner_errors():
    found = owners()
    errors = [f"no owner where expected: {where}" for where in found.pop(None, [])]
    if len(found) > 1:
        errors.append("more than one owner: " + "; ".join(
            f"{o} in {', '.join(sorted(set(f)))}" for o, f in sorted(found.items())))
    return errors


def set_owner(new):
    if not re.fullmatch(r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,37}[A-Za-z0-9])?", new):
        sys.exit(f"--set-owner: {new!r} is not a GitHub user or organisation name")
    for file, patterns in OWNER_PLACES.items():
        path = ROOT / file
        text = path.read_text()
        for pattern in patterns:
            text = re.sub(pattern, lambda m: m.group(0).replace(m.group(1), new, 1), text)
        path.write_text(text)
        print(f"{file}: owner {new}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--set-owner", metavar="NAME", help="replace the owner everywhere first")
    args = ap.parse_args()
    if args.set_owner:
        set_owner(args.set_owner)
    server = json.loads((ROOT / "server.json").read_text())
    cargo = tomllib.loads((ROOT / "Cargo.toml").read_text())
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())
    errors = (schema_errors(server) + rule_errors(server, cargo, pyproject) + env_errors(server)
              + readme_errors(server) + owner_errors())
    for e in errors:
        print(e, file=sys.stderr)
    if errors:
        sys.exit(1)
    source = source_text()
    pending = [n for n in PENDING if f'"{n}"' not in source and any(
        v.get("name") == n for p in server["packages"] for v in p.get("environmentVariables", []))]
    print(f"server.json: {server['name']} {server['version']}, packages "
          f"{', '.join(p['registryType'] + ':' + p['identifier'] for p in server['packages'])}; "
          f"schema 2025-12-11, registry rules, environment, README mcp-name line and owner "
          f"check out" + (f" ({', '.join(pending)} documented before the source reads it)"
                          if pending else ""))


if __name__ == "__main__":
    main()
