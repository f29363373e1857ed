"""Hooks for fuzzing Rota (schemathesis.toml): one check of Rota's own, and rules for calls."""
import os
import re
import time

from urllib.parse import quote

import requests
import schemathesis

# A watch streams every object and each change: a list's filters and paging are a 400 with it
# (VmApiTest, WorkerApiTest), a rule across parameters that the document can only say in words.
LIST_ONLY = ("status", "worker", "set", "limit", "cursor", "labelSelector", "namespace")
WRITES = ("POST", "PUT", "PATCH", "DELETE")
_watched = set()
BASE = os.environ.get("ROTA_FUZZ_URL", "http://127.0.0.1:8080")
TOKEN = os.environ.get("ROTA_FUZZ_TOKEN", "")
_before = {}
# One connection kept for the hooks' own reads, rather than one made for each.
_http = requests.Session()


def _get(path):
    """The object at path as users asked for it, or None when there is none."""
    headers = {"Authorization": "Bearer " + TOKEN} if TOKEN else {}
    reply = _http.get(BASE + path, headers=headers, timeout=30)
    for _ in range(5):
        if reply.status_code != 429:
            break
        # Past the token's rate: as a client should, wait as long as Retry-After says.
        time.sleep(int(reply.headers.get("Retry-After", "1")))
        reply = _http.get(BASE + path, headers=headers, timeout=30)
    if reply.status_code == 404:
        return None
    reply.raise_for_status()
    return reply.json()


# What users asked for, per kind; what Rota changes by itself (status, health, times) is left out.
ASKED = {
    "vms": ("runtime", "image", "command", "env", "resources", "labels", "restartPolicy", "maxRestarts"),
    "vm-sets": ("replicas", "template", "spread", "maxUnavailable", "update", "version"),
    "pools": ("minReady", "max", "standby", "template", "spread", "maxUnavailable"),
    "workers": ("endpoint", "resources", "labels", "runtimes", "schedulingPaused"),
    "service-accounts": ("roles", "namespaceRoles", "worker"),
    "secrets": ("updatedAt",),
    "templates": ("spec", "parameters", "description", "namespace"),
    "namespaces": ("description", "quota"),
    "schedules": ("template", "parameters", "cron", "interval", "timeZone", "jitter", "overlap",
                  "paused", "note"),
}


def _targets(case):
    """The stored objects a write names: in its path, or (a create) in its body. Few, so cheap to read."""
    parts = case.path.strip("/").split("/")  # v1, kind, {name}, action
    if len(parts) < 2 or parts[0] != "v1":
        return []
    kind = parts[1]
    if kind == "cluster-settings":
        return [("cluster-settings", None)]
    if kind not in ASKED:
        return []
    if len(parts) >= 3 and parts[2] == "{name}":
        name = (case.path_parameters or {}).get("name")
        return [(kind, name)] if isinstance(name, str) else []
    body = case.body if isinstance(case.body, dict) else {}
    if len(parts) == 3 and parts[2] == "batch":
        items = body.get("items") if isinstance(body.get("items"), list) else []
        return [(kind, i["name"]) for i in items[:50] if isinstance(i, dict) and isinstance(i.get("name"), str)]
    return [(kind, body["name"])] if isinstance(body.get("name"), str) else []


def _read(kind, name):
    if kind == "cluster-settings":
        return _get("/v1/cluster-settings")
    if not name or "/" in name or name in (".", ".."):
        return None
    found = _get(f"/v1/{kind}/{quote(name, safe='')}")
    return None if found is None else {k: found.get(k) for k in ASKED[kind]}


def _keep_small(case):
    """At most 5 VMs a request: a batch of 1,000 or a set of 10,000 replicas is a load test (bench/), not a
    fuzz case, and on two cores it would leave every later call waiting behind thousands of workflows."""
    body = case.body if isinstance(case.body, dict) else None
    if body is None:
        return
    if isinstance(body.get("items"), list) and len(body["items"]) > 5:
        body["items"] = body["items"][:5]
    for field in ("replicas", "maxUnavailable"):
        if isinstance(body.get(field), (int, float)) and not isinstance(body.get(field), bool) and body[field] > 5:
            body[field] = 5
    # A pool's max is at least its minReady (a 400 otherwise, PoolApiTest): a rule across two fields.
    # A pool's VMs boot and stay: one ready and two out at most keeps the fuzzed host's load down.
    number = lambda v: isinstance(v, (int, float)) and not isinstance(v, bool)
    if number(body.get("minReady")) and number(body.get("max")):
        body["minReady"] = min(int(body["minReady"]), 1)
        body["max"] = max(min(int(body["max"]), 2), body["minReady"], 1)
    # A pool keeps its VMs suspended only when its template's VMs can be suspended (qemu, its image on
    # a persistent disk or no image; a 400 naming standby otherwise, PoolApiTest): a rule across fields.
    template = body.get("template") if isinstance(body.get("template"), dict) else {}
    disk = template.get("disk") if isinstance(template.get("disk"), dict) else {}
    image = template.get("image")
    if body.get("standby") == "suspended" and not (
        template.get("runtime") == "qemu"
        and (not (isinstance(image, str) and image.strip()) or disk.get("persistent") is True)
    ):
        body["standby"] = "running"


def _unique_ports(body):
    """A VM's ports are each named once and each number once (a 400 otherwise, VmApiTest): a rule across
    a list's items that a schema cannot state. The first of each is kept, in any VM the body holds."""
    if isinstance(body, list):
        for item in body:
            _unique_ports(item)
        return
    if not isinstance(body, dict):
        return
    ports = body.get("ports")
    if isinstance(ports, list):
        names, numbers, kept = set(), set(), []
        for port in ports:
            if isinstance(port, dict):
                # JSON's 126 and 126.0 are one port number to the API.
                number = port.get("port")
                if isinstance(number, float) and number.is_integer():
                    number = int(number)
                name, number = str(port.get("name")), str(number)
                if name in names or number in numbers:
                    continue
                names.add(name)
                numbers.add(number)
            kept.append(port)
        body["ports"] = kept
    for field in ("items", "template"):
        _unique_ports(body.get(field))


def _unique_volumes(body):
    """A VM mounts each volume once (a 400 otherwise, VmApiTest): a rule across a list's items that a
    schema cannot state. The first of each name is kept, in any VM the body holds."""
    if isinstance(body, list):
        for item in body:
            _unique_volumes(item)
        return
    if not isinstance(body, dict):
        return
    volumes = body.get("volumes")
    if isinstance(volumes, list):
        names, kept = [], []
        for volume in volumes:
            name = volume.get("name") if isinstance(volume, dict) else None
            if name in names:
                continue
            names.append(name)
            kept.append(volume)
        body["volumes"] = kept
    for field in ("items", "template"):
        _unique_volumes(body.get(field))


def _checks_on_named_ports(body):
    """A check on a port names one of the VM's ports (a 400 otherwise, VmApiTest): a rule across fields
    that a schema cannot state. A check on another port is left out, in any VM the body holds."""
    if isinstance(body, list):
        for item in body:
            _checks_on_named_ports(item)
        return
    if not isinstance(body, dict):
        return
    ports = body.get("ports")
    # A list, not a set: the fuzzer's names and ports may be any JSON, objects included.
    names = [p.get("name") for p in ports if isinstance(p, dict)] if isinstance(ports, list) else []
    for field in ("readiness", "liveness"):
        check = body.get(field)
        if isinstance(check, dict):
            for kind in ("tcp", "http"):
                on = check.get(kind)
                if isinstance(on, dict) and on.get("port") not in names:
                    body.pop(field)
                    break
    for field in ("items", "template"):
        _checks_on_named_ports(body.get(field))


def _valid_constraints(body):
    """A constraint's values (and an affinity's, whose rule is a constraint's) are as its operator
    needs (none, one, or one or more), a regexp's one compiles in Java and a version's one is a list
    of comparisons (a 400 otherwise, VmApiTest), and an affinity's weight is not 0: rules across
    fields, and of Java's regular expressions, that a schema cannot state. The values are made so, in
    any VM the body holds; the operator is kept."""
    if isinstance(body, list):
        for item in body:
            _valid_constraints(item)
        return
    if not isinstance(body, dict):
        return
    rules = [
        c
        for field in ("constraints", "affinities")
        if isinstance(body.get(field), list)
        for c in body.get(field)
    ]
    if rules:
        for c in rules:
            if not isinstance(c, dict):
                continue
            if c.get("weight") == 0:
                c["weight"] = 1
            values = c.get("values") if isinstance(c.get("values"), list) else []
            op = c.get("operator")
            if op in ("exists", "notExists"):
                c["values"] = []
            elif op in ("in", "notIn"):
                c["values"] = values or ["a"]
            elif op == "regexp":
                c["values"] = ["ci-[0-9]+"]
            elif op == "version":
                c["values"] = [">= 6.1, < 7"]
            else:
                c["values"] = values[:1] or ["a"]
    for field in ("items", "template", "spec"):
        _valid_constraints(body.get(field))


def _targets_within_100(body):
    """A label spread's targets add up to at most 100 percent (a 400 otherwise, VmSetApiTest): a sum
    a schema cannot state. Shares are cut to fit, in any set or pool the body holds."""
    if isinstance(body, list):
        for item in body:
            _targets_within_100(item)
        return
    if not isinstance(body, dict):
        return
    spread = body.get("spread")
    if isinstance(spread, dict) and isinstance(spread.get("targets"), dict):
        left = 100
        for value in list(spread["targets"]):
            share = spread["targets"][value]
            if not isinstance(share, int) or isinstance(share, bool) or left < 1:
                spread["targets"].pop(value)
                continue
            spread["targets"][value] = max(1, min(share, left))
            left -= spread["targets"][value]
    for field in ("items",):
        _targets_within_100(body.get(field))


SECRET = "fuzz"


def _refs_to_a_secret(body):
    """A reference to a secret that does not exist is a 400 however well formed (a rule of the stored
    data, which a schema cannot state): every well-formed reference is made one to a secret that does."""
    found = False
    if isinstance(body, dict):
        if set(body) == {"secretRef"} and isinstance(body["secretRef"], str) \
                and DNS_LABEL.match(body["secretRef"]):
            body["secretRef"] = SECRET
            return True
        for value in body.values():
            found = _refs_to_a_secret(value) or found
    elif isinstance(body, list):
        for value in body:
            found = _refs_to_a_secret(value) or found
    return found


def _ensure_secret():
    headers = {"Authorization": "Bearer " + TOKEN} if TOKEN else {}
    _http.post(BASE + "/v1/secrets", json={"name": SECRET, "value": "fuzzed"}, headers=headers, timeout=30)


SIZE = "fuzz"


def _sizes_that_exist(body):
    """An instance size the cluster does not have is a 400 however well named (a rule of the stored
    settings): every size a VM names is made one the cluster has."""
    found = False
    if isinstance(body, dict):
        if isinstance(body.get("size"), str) and DNS_LABEL.match(body["size"]):
            body["size"] = SIZE
            found = True
        for field in ("template", "items", "spec"):
            found = _sizes_that_exist(body.get(field)) or found
    elif isinstance(body, list):
        for value in body:
            found = _sizes_that_exist(value) or found
    return found


def _ensure_size():
    """The cluster has the fuzzer's size, its other settings kept as they are."""
    settings = _get("/v1/cluster-settings")
    sizes = settings.get("instanceSizes") or {}
    if SIZE in sizes:
        return
    sizes[SIZE] = {"cpu": 1}
    headers = {"Authorization": "Bearer " + TOKEN} if TOKEN else {}
    _http.put(BASE + "/v1/cluster-settings", headers=headers, timeout=30, json={
        "schedulerProfile": settings["schedulerProfile"],
        "defaultMaxRunDuration": settings.get("defaultMaxRunDuration"),
        "instanceSizes": sizes})


DNS_LABEL = re.compile(r"^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$")
SET_NAME = re.compile(r"^[a-z0-9]([a-z0-9-]{0,56}[a-z0-9])?$")


def _same_set_name(case):
    """PUT /v1/vm-sets/{name} names the set twice; a valid body name is made the path's, so that most
    valid bodies reach the API's logic instead of its 400 for two names (schemathesis.toml)."""
    name = (case.path_parameters or {}).get("name")
    if case.method.upper() == "PUT" and case.path == "/v1/vm-sets/{name}" and isinstance(case.body, dict) \
            and isinstance(name, str) and SET_NAME.match(name) and isinstance(case.body.get("name"), str) \
            and SET_NAME.match(case.body["name"]):
        case.body["name"] = name


def _rollout_bounds(case):
    """A set's rollout needs maxSurge or maxUnavailable above 0, and a progress deadline longer than
    its healthy time (at most 1h) and at most 1d: rules across fields, and sums of a duration's
    parts, that a schema cannot state. A body that breaks them is made to keep them."""
    if case.method.upper() not in ("POST", "PUT") or case.path not in ("/v1/vm-sets", "/v1/vm-sets/{name}") \
            or not isinstance(case.body, dict):
        return
    update = case.body.get("update")
    if update is not None and not isinstance(update, dict):
        return
    if case.body.get("maxUnavailable") == 0:
        update = case.body["update"] = update if isinstance(update, dict) else {}
        if not isinstance(update.get("maxSurge"), int) or update.get("maxSurge") < 1:
            update["maxSurge"] = 1
    if isinstance(update, dict):
        if isinstance(update.get("minHealthyTime"), str):
            update["minHealthyTime"] = "5s"
        if isinstance(update.get("progressDeadline"), str):
            update["progressDeadline"] = "10m"


TEMPLATE = "fuzz-template"


def _refs_to_a_template(body):
    """A template that does not exist is a 400 however well named, and so are values for parameters
    a template does not have (rules of the stored data): every VM made of a template is made of the
    fuzzer's own, which has none, and gives none."""
    found = False
    for vm in [body] + list(body.get("items") or []) if isinstance(body, dict) else []:
        if isinstance(vm, dict) and isinstance(vm.get("fromTemplate"), str) \
                and DNS_LABEL.match(vm["fromTemplate"]):
            vm["fromTemplate"] = TEMPLATE
            if isinstance(vm.get("parameters"), dict):
                vm["parameters"] = {}
            found = True
    return found


def _ensure_template():
    if _get("/v1/templates/" + TEMPLATE) is None:
        headers = {"Authorization": "Bearer " + TOKEN} if TOKEN else {}
        _http.post(BASE + "/v1/templates", headers=headers, timeout=30,
                   json={"name": TEMPLATE, "spec": {"command": ["true"]}})


def _dispatch_parameters(case):
    """A dispatch gives values only for the parameters its template has: none, as far as the fuzzer
    can know."""
    if case.path == "/v1/templates/{name}/dispatch" and isinstance(case.body, dict) \
            and isinstance(case.body.get("parameters"), dict):
        case.body["parameters"] = {}


def _schedules_of_the_fuzzers_template(case):
    """A schedule makes VMs of a template that exists, with values for the parameters it has: the
    fuzzer's own, which has none. And it is made paused: one every second beside the fuzzing would
    be its own load test (a run the fuzzer triggers still makes a VM)."""
    if case.method.upper() == "POST" and case.path == "/v1/schedules" and isinstance(case.body, dict):
        if isinstance(case.body.get("template"), str) and DNS_LABEL.match(case.body["template"]):
            case.body["template"] = TEMPLATE
            if isinstance(case.body.get("parameters"), dict):
                case.body["parameters"] = {}
            _ensure_template()
        if case.body.get("paused") in (None, False):
            case.body["paused"] = True


def _namespaces_that_exist(case):
    """A namespace that does not exist is a 400 however well named (a rule of the stored data), and
    a quota on default would refuse, rightly, what later creates try: what a body puts in a
    namespace goes to default, and the fuzzer gives quotas to namespaces of its own only."""
    def to_default(body):
        if isinstance(body, dict):
            if isinstance(body.get("namespace"), str):
                body["namespace"] = "default"
            elif "namespace" in body and body["namespace"] is not None:
                body.pop("namespace")  # not a name: a set's template may hold one only as shown
            for field in ("template", "items"):
                to_default(body.get(field))
            if isinstance(body.get("spec"), dict):
                # A template's spec names none: the template's namespace is its VMs'.
                body["spec"].pop("namespace", None)
        elif isinstance(body, list):
            for value in body:
                to_default(value)
    to_default(case.body)
    roles = case.body.get("namespaceRoles") if isinstance(case.body, dict) else None
    if isinstance(roles, dict) and roles:
        # An account's roles in a namespace, in one that exists.
        case.body["namespaceRoles"] = {"default": next(iter(roles.values()))}
    if case.method.upper() == "PUT" and case.path == "/v1/namespaces/{name}" \
            and (case.path_parameters or {}).get("name") == "default" and isinstance(case.body, dict):
        case.body.pop("quota", None)


def _takes_submissions(case):
    """A cluster that refuses submissions (PATCH /v1/cluster) would refuse, rightly, what every later
    create tries: the fuzzer may pause scheduling, never submissions."""
    if case.method.upper() == "PATCH" and case.path == "/v1/cluster" and isinstance(case.body, dict) \
            and case.body.get("rejectSubmissions") is True:
        case.body["rejectSubmissions"] = False


@schemathesis.hook
def before_call(ctx, case, **kwargs):
    if case.query and str(case.query.get("watch")).lower() == "true":
        for name in LIST_ONLY:
            case.query.pop(name, None)
        # A watch lasts until the client leaves: bound it, so that the fuzzer reads a whole stream.
        case.query["timeoutSeconds"] = 1
        # Without the list's filters most watches the fuzzer makes are one and the same: a watch read
        # already is asked as a list instead, rather than waited out again.
        key = (case.path, tuple(sorted((k, str(v)) for k, v in case.query.items())))
        if key in _watched:
            case.query.pop("watch")
            case.query.pop("timeoutSeconds")
        else:
            _watched.add(key)
    if case.query and "waitSeconds" in case.query:
        # A log read may wait up to a minute for more: the fuzzer reads what there is, at once.
        case.query["waitSeconds"] = 0
    if case.query and str(case.query.get("follow")).lower() == "true":
        # A followed log lasts as long as its task: bound it, as a watch is.
        case.query["timeoutSeconds"] = 1
        case.query.pop("waitSeconds", None)
    _keep_small(case)
    _unique_ports(case.body)
    _unique_volumes(case.body)
    _checks_on_named_ports(case.body)
    _valid_constraints(case.body)
    _targets_within_100(case.body)
    _same_set_name(case)
    _rollout_bounds(case)
    _dispatch_parameters(case)
    _schedules_of_the_fuzzers_template(case)
    _takes_submissions(case)
    _namespaces_that_exist(case)
    if _refs_to_a_secret(case.body):
        _ensure_secret()
    if _sizes_that_exist(case.body):
        _ensure_size()
    if _refs_to_a_template(case.body):
        _ensure_template()
    if case.method.upper() in WRITES:
        _before[id(case)] = {t: _read(*t) for t in _targets(case)}


@schemathesis.check
def rejected_write_changes_nothing(ctx, response, case):
    """A write answered 4xx stored nothing: what it named was not made, and what was there did not change.

    A removal is not counted: a delete accepted earlier may finish meanwhile.
    """
    before = _before.pop(id(case), None)
    if not before or not (400 <= response.status_code < 500) or response.status_code == 429:
        return None
    for (kind, name), was in before.items():
        now = _read(kind, name)
        if was is None and now is not None:
            raise AssertionError(f"{case.method} {case.path} was refused ({response.status_code}) yet {kind} {name!r} now exists")
        if was is not None and now is not None and now != was:
            raise AssertionError(
                f"{case.method} {case.path} was refused ({response.status_code}) yet changed {kind} {name!r}: {was} -> {now}")
    return None
