"""What inline interpreter code does: runs a shell, deletes or overwrites files, talks to the network, or
reaches its functions in ways no reading can follow (`getattr(os, 'sys'+'tem')`, `eval`).

Python is parsed (`ast`), so imports and aliases are followed (`from os import system as s`) and any
dynamic lookup counts as unprovable. The other languages are read with patterns, on the same three
questions; code that hides its calls (`eval`, symbol tables, string-built names) counts as unprovable.
"""

from __future__ import annotations

import ast
import re

# Finding rules: interpreter-shell, interpreter-delete, interpreter-write, exfiltration,
# interpreter-unprovable, interpreter-unparsed. Each result is (rule, what was seen).
Result = tuple[str, str]

_PY_SHELL = (
    "os.system",
    "os.popen",
    "os.exec",
    "os.spawn",
    "os.posix_spawn",
    "os.fork",
    "os.forkpty",
    "os.kill",
    "os.killpg",
    "subprocess.",
    "pty.spawn",
    "commands.",
    "asyncio.create_subprocess",
    "multiprocessing.",
    "ctypes.",
    "cffi.",
    "pexpect.",
    "sh.",
    "plumbum.",
)
_PY_DELETE = (
    "os.remove",
    "os.unlink",
    "os.rmdir",
    "os.removedirs",
    "os.rename",
    "os.renames",
    "os.replace",
    "os.truncate",
    "os.ftruncate",
    "os.chmod",
    "os.chown",
    "os.symlink",
    "os.link",
    "os.open",
    "os.write",
    "shutil.rmtree",
    "shutil.move",
    "shutil.copy",
    "shutil.chown",
    "shutil.make_archive",
    "shutil.unpack_archive",
)
# Methods that delete, overwrite or run whatever object they are called on (the receiver is not followed).
_PY_METHODS = frozenset(
    {"unlink", "rmdir", "rmtree", "write_text", "write_bytes", "symlink_to", "hardlink_to", "system", "popen"}
)
_PY_NETWORK = (
    "urllib.",
    "http.client",
    "requests.",
    "httpx.",
    "aiohttp.",
    "socket.",
    "ftplib.",
    "smtplib.",
    "telnetlib.",
    "xmlrpc.",
    "asyncio.open_connection",
    "ssl.",
    "paramiko.",
    "websocket",
)
_PY_DYNAMIC_NAMES = frozenset(
    {"getattr", "setattr", "__import__", "eval", "exec", "compile", "globals", "locals", "vars", "breakpoint"}
)
_PY_DYNAMIC_MODULES = ("importlib", "builtins", "marshal", "pickle", "runpy", "codeop", "imp.", "sys.modules")
_SAFE_DUNDERS = frozenset({"__name__", "__file__", "__doc__", "__version__", "__main__", "__init__"})


def scan_code(language: str, code: str) -> list[Result]:
    """Every reason `code` in `language` needs the user's approval."""
    if language == "python":
        return _python(code)
    patterns = _PATTERNS.get(language, _PATTERNS["other"])
    found: list[Result] = []
    for rule, pattern in patterns:
        match = pattern.search(code)
        if match:
            found.append((rule, match.group(0).strip()[:60]))
    return found


def _python(code: str) -> list[Result]:
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError):
        return [("interpreter-unparsed", "python code that does not parse")]
    aliases: dict[str, str] = {}
    found: list[Result] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for name in node.names:
                aliases[name.asname or name.name.split(".")[0]] = (
                    name.name if name.asname else name.name.split(".")[0]
                )
        elif isinstance(node, ast.ImportFrom):
            for name in node.names:
                if name.name == "*":
                    found.append(("interpreter-unprovable", f"from {node.module} import *"))
                else:
                    aliases[name.asname or name.name] = f"{node.module or ''}.{name.name}"
    for node in ast.walk(tree):
        if isinstance(node, (ast.Name, ast.Attribute)):
            dotted = _dotted(node, aliases)
            if dotted:
                found.extend(_classify(dotted))
            attr = node.attr if isinstance(node, ast.Attribute) else node.id
            if attr.startswith("__") and attr.endswith("__") and attr not in _SAFE_DUNDERS:
                found.append(("interpreter-unprovable", attr))
        elif isinstance(node, ast.Call):
            found.extend(_python_call(node, aliases))
    return _unique(found)


def _dotted(node: ast.AST, aliases: dict[str, str]) -> str:
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return ""
    root = aliases.get(node.id, node.id)
    return ".".join([root, *reversed(parts)])


def _classify(dotted: str) -> list[Result]:
    name = dotted + "."
    if dotted in _PY_DYNAMIC_NAMES or any(name.startswith(m) for m in _PY_DYNAMIC_MODULES):
        return [("interpreter-unprovable", dotted)]
    if any(name.startswith(p) for p in _PY_SHELL):
        return [("interpreter-shell", dotted)]
    if any(name.startswith(p) for p in _PY_DELETE):
        return [("interpreter-delete", dotted)]
    return []


def _python_call(node: ast.Call, aliases: dict[str, str]) -> list[Result]:
    func = node.func
    dotted = _dotted(func, aliases)
    if isinstance(func, ast.Attribute) and func.attr in _PY_METHODS:
        rule = "interpreter-shell" if func.attr in ("system", "popen") else "interpreter-delete"
        return [(rule, f".{func.attr}()")]
    builtin_open = dotted in ("open", "io.open", "codecs.open")
    if builtin_open or (isinstance(func, ast.Attribute) and func.attr == "open"):
        mode = _argument(node, 1 if builtin_open else 0, "mode")
        if mode is None:
            return []
        if not isinstance(mode, ast.Constant) or not isinstance(mode.value, str):
            return [("interpreter-unprovable", "open() with a mode that is not literal")]
        if set(mode.value) & set("wax+"):
            return [("interpreter-write", f"open(…, {mode.value!r})")]
        return []
    name = dotted + "."
    if any(name.startswith(p) for p in _PY_NETWORK):
        literal = all(isinstance(a, ast.Constant) for a in node.args)
        sends = {k.arg for k in node.keywords} & {"data", "json", "files", "body", "content", "params"}
        getter = dotted.rsplit(".", 1)[-1] in ("urlopen", "get", "head", "urlretrieve", "Request")
        if not (literal and getter and not sends and len(node.args) <= 1):
            return [("exfiltration", dotted)]
    return []


def _argument(node: ast.Call, position: int, keyword: str) -> ast.AST | None:
    for item in node.keywords:
        if item.arg == keyword:
            return item.value
    if len(node.args) > position:
        return node.args[position]
    return None


def _unique(found: list[Result]) -> list[Result]:
    seen: dict[str, Result] = {}
    for rule, what in found:
        seen.setdefault(rule, (rule, what))
    return list(seen.values())


def _rx(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.IGNORECASE | re.MULTILINE)


_PATTERNS: dict[str, list[tuple[str, re.Pattern[str]]]] = {
    "perl": [
        ("interpreter-shell", _rx(r"\b(system|exec|qx|readpipe|fork|syscall|kill)\b|`|open\s*\(?[^;]*\|")),
        ("interpreter-delete", _rx(r"\b(unlink|rmdir|rmtree|remove_tree|truncate|rename|chmod|chown)\b")),
        ("interpreter-write", _rx(r"open\s*\(?[^;]*[\"']\s*\+?(>|>>)|\bopen\s*\(?\s*\w+\s*,\s*[\"']?>")),
        ("exfiltration", _rx(r"IO::Socket|LWP|HTTP::Tiny|Net::|\bsocket\b")),
        (
            "interpreter-unprovable",
            _rx(
                r"\beval\b|&\s*\{|&\s*\$|\*\s*\{|->\s*\(|\bcan\s*\(|CORE::|\bdo\s+[\"'$]|\brequire\s+\$|\bs([/#|!,])(?:(?!\1).)*\1(?:(?!\1).)*\1[a-z]*e"
            ),
        ),
    ],
    "ruby": [
        (
            "interpreter-shell",
            _rx(r"\b(system|exec|spawn|fork|syscall)\b|`|%x|IO\.popen|Open3|Process\.|Kernel\.|PTY\."),
        ),
        (
            "interpreter-delete",
            _rx(
                r"FileUtils|File\.(delete|unlink|rename|truncate)|Dir\.(rmdir|delete|unlink)|\.unlink\b|rm_rf"
            ),
        ),
        ("interpreter-write", _rx(r"File\.(write|new|open)\s*\(?[^)]*[\"'][wa+]|IO\.write|\.write\s*\(")),
        ("exfiltration", _rx(r"Net::|TCPSocket|UDPSocket|Socket\b|URI\.open|open-uri|Faraday|RestClient")),
        (
            "interpreter-unprovable",
            _rx(
                r"\b(eval|instance_eval|class_eval|module_eval|send|public_send|__send__|method|const_get|define_method|binding)\b"
            ),
        ),
    ],
    "node": [
        (
            "interpreter-shell",
            _rx(
                r"child_process|\b(execSync|spawnSync|execFileSync|execFile|spawn|fork)\s*\(|\bexec\s*\(|process\.(binding|dlopen|kill)"
            ),
        ),
        (
            "interpreter-delete",
            _rx(
                r"\.(rm|rmSync|rmdir|rmdirSync|unlink|unlinkSync|truncate|truncateSync|rename|renameSync)\s*\("
            ),
        ),
        (
            "interpreter-write",
            _rx(
                r"\.(writeFile|writeFileSync|appendFile|appendFileSync|createWriteStream|copyFile|copyFileSync|cp|cpSync|openSync|open)\s*\("
            ),
        ),
        (
            "exfiltration",
            _rx(
                r"\brequire\s*\(\s*[\"'](https?|net|dgram|tls|http2)[\"']|\bfetch\s*\(|XMLHttpRequest|WebSocket|axios"
            ),
        ),
        (
            "interpreter-unprovable",
            _rx(
                r"\beval\b|\bFunction\s*\(|\bimport\s*\(|require\s*\(\s*[^\"'\s)]|require\s*\(\s*[\"'][^\"']*[\"']\s*\+|(globalThis|global|process|module)\s*\[|\bvm\b|fromCharCode|atob\s*\(|base64"
            ),
        ),
    ],
    "php": [
        (
            "interpreter-shell",
            _rx(r"\b(system|exec|shell_exec|passthru|popen|proc_open|pcntl_exec|pcntl_fork|mail)\s*\(|`"),
        ),
        ("interpreter-delete", _rx(r"\b(unlink|rmdir|rename|ftruncate|chmod|chown)\s*\(")),
        (
            "interpreter-write",
            _rx(r"\b(file_put_contents|fwrite|fputs|copy)\s*\(|fopen\s*\([^)]*[\"'][waxc+]"),
        ),
        (
            "exfiltration",
            _rx(
                r"\b(curl_\w+|fsockopen|stream_socket_client|socket_\w+)\s*\(|file_get_contents\s*\(\s*[\"']https?"
            ),
        ),
        (
            "interpreter-unprovable",
            _rx(
                r"\b(eval|assert|create_function|call_user_func\w*|base64_decode|str_rot13|gzinflate)\s*\(|\$\w+\s*\("
                r"|[\"'](system|exec|shell_exec|passthru|popen|proc_open|unlink|rmdir|eval|assert)[\"']"
            ),
        ),
    ],
    "lua": [
        ("interpreter-shell", _rx(r"os\.execute|io\.popen")),
        ("interpreter-delete", _rx(r"os\.remove|os\.rename")),
        ("interpreter-write", _rx(r"io\.open\s*\([^)]*[\"'][wa+]|io\.output")),
        ("exfiltration", _rx(r"socket|http\.request")),
        (
            "interpreter-unprovable",
            _rx(r"\bload(string)?\s*\(|\bdofile\b|\brequire\s*\(?\s*[^\"'(\s]|_G\s*\[|_ENV"),
        ),
    ],
    "awk": [
        ("interpreter-shell", _rx(r"\bsystem\s*\(|\|\s*getline|\|&|\bprintf?\b[^;{}]*\|\s*[\"\w(]")),
        ("interpreter-write", _rx(r"\bprintf?\b[^;{}]*>>?\s*[\"\w(]")),
        ("exfiltration", _rx(r"/inet/")),
    ],
    "other": [
        ("interpreter-shell", _rx(r"\b(system|exec|spawn|popen|shell|run|process)\b")),
        ("interpreter-delete", _rx(r"\b(unlink|remove|rmdir|delete|rm|truncate)\b")),
        ("exfiltration", _rx(r"\b(socket|http|url|curl|fetch)\b")),
        ("interpreter-unprovable", _rx(r"\beval\b")),
    ],
}
