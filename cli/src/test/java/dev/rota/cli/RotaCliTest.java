package dev.rota.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The CLI as a script sees it: what it asks the API, what it prints, and what it exits with. */
class RotaCliTest {
  @TempDir Path home;
  private StandInApi api;
  private final ObjectMapper json = new ObjectMapper();
  private final Map<String, String> env = new HashMap<>();

  /**
   * Time for --wait: it moves only when the CLI pauses between polls, so nothing here waits for
   * real.
   */
  private Instant now = Instant.parse("2026-11-23T07:00:00Z");

  record Result(int code, String out, String err) {}

  private static String vm(
      String name, String status, String worker, int restarts, String message) {
    return "{\"name\":\""
        + name
        + "\",\"status\":\""
        + status
        + "\",\"worker\":"
        + (worker == null ? "null" : "\"" + worker + "\"")
        + ",\"restartCount\":"
        + restarts
        + ",\"statusMessage\":"
        + (message == null ? "null" : "\"" + message + "\"")
        + ",\"set\":null}";
  }

  @BeforeEach
  void standIn() throws Exception {
    api = new StandInApi();
    env.put("ROTA_CONFIG", home.resolve("config.json").toString());
    env.put("ROTA_SERVER", api.url());
  }

  @AfterEach
  void stop() {
    api.close();
  }

  /** {@code first}'s arguments, then {@code more}. */
  private static String[] with(List<String> first, String... more) {
    List<String> all = new java.util.ArrayList<>(first);
    all.addAll(List.of(more));
    return all.toArray(String[]::new);
  }

  private Result run(String... args) {
    return run(false, args);
  }

  private Result runOnTerminal(String... args) {
    return run(true, args);
  }

  private Result run(boolean terminal, String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    Clock clock =
        new Clock() {
          @Override
          public java.time.ZoneId getZone() {
            return ZoneOffset.UTC;
          }

          @Override
          public Clock withZone(java.time.ZoneId zone) {
            return this;
          }

          @Override
          public Instant instant() {
            return now;
          }
        };
    int code =
        RotaCli.run(
            args,
            env,
            new PrintWriter(out),
            new PrintWriter(err),
            clock,
            millis -> now = now.plusMillis(millis),
            terminal);
    return new Result(code, out.toString(), err.toString());
  }

  @Test
  void getAndDeleteTakeSeveralNames() throws Exception {
    api.on("GET /v1/vms/a", StandInApi.Reply.json(200, vm("a", "running", "w1", 0, null)));
    api.on("GET /v1/vms/b", StandInApi.Reply.json(200, vm("b", "pending", null, 0, "waiting")));
    Result both = run("vm", "get", "a", "b", "-o", "name");
    assertEquals(0, both.code(), both.err());
    assertEquals(List.of("a", "b"), both.out().lines().toList());
    api.on(
        "GET /v1/vms/gone",
        new StandInApi.Reply(
            404,
            "application/problem+json",
            "{\"title\":\"Not Found\",\"status\":404,\"detail\":\"VM 'gone' does not exist\"}",
            Map.of()));
    Result some = run("vm", "get", "a", "gone", "-o", "name");
    assertEquals(List.of("a"), some.out().lines().toList(), "those found are shown");
    assertTrue(some.err().contains("gone"), some.err());
    assertTrue(some.code() != 0, "and the exit code says one was missing");

    api.on("DELETE /v1/vms/a", new StandInApi.Reply(202, "application/json", "{}", Map.of()));
    api.on("DELETE /v1/vms/b", new StandInApi.Reply(202, "application/json", "{}", Map.of()));
    Result deleted = run("vm", "delete", "a", "b");
    assertEquals(0, deleted.code(), deleted.err());
    assertEquals("vm a being deleted\nvm b being deleted\n", deleted.out());
  }

  @Test
  void clusterPauseAndResumeSendTheirPatch() throws Exception {
    api.on(
        "PATCH /v1/cluster",
        StandInApi.Reply.json(200, "{\"schedulingPaused\":true,\"pauseReason\":\"upgrade\"}"));
    Result paused = run("cluster", "pause", "--reason", "upgrade", "--reject-submissions");
    assertEquals(0, paused.code(), paused.err());
    assertEquals(
        json.readTree(
            "{\"schedulingPaused\":true,\"rejectSubmissions\":true,\"reason\":\"upgrade\"}"),
        json.readTree(api.last().body()));
    assertEquals(0, run("cluster", "resume").code());
    assertEquals(
        json.readTree("{\"schedulingPaused\":false,\"rejectSubmissions\":false}"),
        json.readTree(api.last().body()));
    assertEquals(2, run("cluster", "pause").code(), "a pause says why");
  }

  @Test
  void clusterSetChangesWhatItIsGivenAndKeepsTheRest() throws Exception {
    api.on(
        "GET /v1/cluster-settings",
        StandInApi.Reply.json(
            200, "{\"schedulerProfile\":\"distribute-load\",\"defaultMaxRunDuration\":null}"));
    api.on(
        "PUT /v1/cluster-settings",
        StandInApi.Reply.json(
            200, "{\"schedulerProfile\":\"distribute-load\",\"defaultMaxRunDuration\":\"8h\"}"));
    Result set = run("cluster", "set", "--default-max-run", "480m");
    assertEquals(0, set.code(), set.err());
    assertEquals(
        json.readTree(
            "{\"schedulerProfile\":\"distribute-load\",\"defaultMaxRunDuration\":\"8h\"}"),
        json.readTree(api.last().body()));
    assertEquals(0, run("cluster", "set", "--default-max-run", "none").code());
    assertEquals(
        json.readTree("{\"schedulerProfile\":\"distribute-load\",\"defaultMaxRunDuration\":null}"),
        json.readTree(api.last().body()));
    assertEquals(0, run("cluster", "set", "--preemption", "on").code());
    assertEquals(true, json.readTree(api.last().body()).path("preemption").asBoolean());
    assertEquals(
        "distribute-load", json.readTree(api.last().body()).path("schedulerProfile").asText());
    int before = api.requests.size();
    Result maybe = run("cluster", "set", "--preemption", "maybe");
    assertEquals(ExitCodes.USAGE, maybe.code());
    assertTrue(maybe.err().contains("give on or off"), maybe.err());
    Result nothing = run("cluster", "set");
    assertEquals(ExitCodes.USAGE, nothing.code());
    assertTrue(nothing.err().contains("--default-max-run"), nothing.err());
    assertEquals(before, api.requests.size(), "no request");
  }

  @Test
  void instanceSizesAreSetOneByOneAndTemplatesMakeVms() throws Exception {
    api.on(
        "GET /v1/cluster-settings",
        StandInApi.Reply.json(
            200,
            "{\"schedulerProfile\":\"distribute-load\",\"defaultMaxRunDuration\":null,"
                + "\"instanceSizes\":{\"small\":{\"cpu\":1,\"memory\":1024}}}"));
    api.on("PUT /v1/cluster-settings", StandInApi.Reply.json(200, "{}"));
    Result sized = run("cluster", "set", "--instance-size", "large=8,16Gi");
    assertEquals(0, sized.code(), sized.err());
    assertEquals(
        json.readTree(
            "{\"small\":{\"cpu\":1,\"memory\":1024},\"large\":{\"cpu\":8,\"memory\":\"16Gi\"}}"),
        json.readTree(api.last().body()).get("instanceSizes"),
        "the new size beside those there");

    Path file =
        Files.writeString(
            home.resolve("runner.yaml"),
            "name: runner\nspec: {command: [sleep, 60]}\n"
                + "parameters:\n- {name: cpus, type: integer, field: resources.cpu, default: 2}\n");
    String shown =
        "{\"name\":\"runner\",\"namespace\":\"default\",\"spec\":{\"command\":[\"sleep\",\"60\"]},"
            + "\"parameters\":[{\"name\":\"cpus\",\"default\":2},{\"name\":\"branch\",\"default\":null}],"
            + "\"updatedAt\":\"2026-12-01T10:00:00Z\"}";
    api.on("POST /v1/templates", StandInApi.Reply.json(201, shown));
    Result created = run("template", "create", "-f", file.toString());
    assertEquals(0, created.code(), created.err());
    assertTrue(
        created
            .out()
            .lines()
            .toList()
            .get(1)
            .matches("runner +default +cpus\\?,branch +sleep 60 +.*"),
        created.out());
    assertEquals("runner", json.readTree(api.last().body()).get("name").asText());

    api.on("POST /v1/vms", StandInApi.Reply.json(201, vm("job", "pending", null, 0, null)));
    Result vm =
        run(
            "vm",
            "create",
            "job",
            "--from-template",
            "runner",
            "--param",
            "cpus=4",
            "--param",
            "branch=main",
            "--param",
            "run=[\"true\"]",
            "--size",
            "small");
    assertEquals(0, vm.code(), vm.err());
    assertEquals(
        json.readTree(
            "{\"size\":\"small\",\"fromTemplate\":\"runner\",\"name\":\"job\",\"parameters\":"
                + "{\"cpus\":4,\"branch\":\"main\",\"run\":[\"true\"]}}"),
        json.readTree(api.last().body()),
        "values as JSON where they read as JSON, else strings");
    Result withCommand = run("vm", "create", "job", "--from-template", "runner", "--", "true");
    assertEquals(ExitCodes.USAGE, withCommand.code());

    api.on("POST /v1/vm-sets", StandInApi.Reply.json(201, "{\"name\":\"runners\",\"replicas\":2}"));
    List<String> ofTemplate =
        List.of("vm-set", "create", "runners", "--replicas", "2", "--from-template", "runner");
    Result set = run(with(ofTemplate, "--param", "cpus=4"));
    assertEquals(0, set.code(), set.err());
    JsonNode sent = json.readTree(api.last().body());
    assertEquals("runner", sent.path("fromTemplate").asText());
    assertEquals(json.readTree("{\"cpus\":4}"), sent.get("parameters"));
    assertTrue(sent.path("template").isMissingNode(), "no spec beside it: " + sent);
    Result setWithCommand = run(with(ofTemplate, "--", "true"));
    assertEquals(ExitCodes.USAGE, setWithCommand.code());
  }

  @Test
  void aScheduleIsMadeFromFlagsAndShownWithItsNextRunAndRunningVms() throws Exception {
    String shown =
        """
        {"name":"nightly","template":"runner","parameters":{"branch":"main"},"cron":"0 2 * * MON-FRI",
         "interval":null,"timeZone":"Europe/Berlin","jitter":"30s","overlap":"cancelOther",
         "paused":false,"nextRuns":["2026-12-02T01:00:00Z"],"recentRuns":[],
         "runningVms":["nightly-20261201-010000"],"runs":1,"skipped":0}""";
    api.on("POST /v1/schedules", StandInApi.Reply.json(201, shown));
    Result created =
        run(
            "schedule",
            "create",
            "nightly",
            "--template",
            "runner",
            "--param",
            "branch=main",
            "--param",
            "cpus=2",
            "--cron",
            "0 2 * * MON-FRI",
            "--time-zone",
            "Europe/Berlin",
            "--jitter",
            "30s",
            "--overlap",
            "cancelOther");
    assertEquals(0, created.code(), created.err());
    assertEquals(
        json.readTree(
            """
            {"name":"nightly","template":"runner","parameters":{"branch":"main","cpus":2},
             "cron":"0 2 * * MON-FRI","timeZone":"Europe/Berlin","jitter":"30s",
             "overlap":"cancelOther"}"""),
        json.readTree(api.last().body()));
    assertTrue(
        created
            .out()
            .lines()
            .toList()
            .get(1)
            .matches(
                "nightly +runner +0 2 \\* \\* MON-FRI \\(Europe/Berlin\\) +cancelOther +no"
                    + " +2026-12-02T01:00:00Z +nightly-20261201-010000"),
        created.out());

    Result both =
        run("schedule", "create", "x", "--template", "t", "--cron", "@daily", "--every", "1h");
    assertEquals(ExitCodes.USAGE, both.code(), "a cron expression or an interval, not both");
    Result neither = run("schedule", "create", "x", "--template", "t");
    assertEquals(ExitCodes.USAGE, neither.code());

    api.on(
        "POST /v1/schedules/nightly/pause",
        StandInApi.Reply.json(200, shown.replace("\"paused\":false", "\"paused\":true")));
    Result paused = run("schedule", "pause", "nightly", "--note", "release freeze");
    assertEquals(0, paused.code(), paused.err());
    assertEquals("{\"note\":\"release freeze\"}", api.last().body());
    assertTrue(paused.out().matches("(?s).*cancelOther +yes.*"), paused.out());

    api.on("POST /v1/schedules/nightly/trigger", StandInApi.Reply.json(200, shown));
    assertEquals(0, run("schedule", "trigger", "nightly").code());
    api.on("DELETE /v1/schedules/nightly", StandInApi.Reply.json(204, ""));
    Result deleted = run("schedule", "delete", "nightly");
    assertEquals(0, deleted.code(), deleted.err());
    assertEquals("schedule nightly deleted", deleted.out().strip());
  }

  @Test
  void memoryWithAUnitGoesAsWrittenForTheApiToRead() throws Exception {
    api.on(
        "POST /v1/vms",
        StandInApi.Reply.json(201, vm("big", "pending", null, 0, "waiting for the scheduler")));
    Result r = run("vm", "create", "big", "--memory", "2Gi", "--", "sleep", "1");
    assertEquals(0, r.code(), r.err());
    assertEquals("\"2Gi\"", json.readTree(api.last().body()).at("/resources/memory").toString());
  }

  @Test
  void createSendsTheSpecFromFlagsAndPrintsTheVmAsATable() throws Exception {
    api.on(
        "POST /v1/vms",
        StandInApi.Reply.json(
            201, vm("build-42", "pending", null, 0, "waiting for the scheduler")));
    Result r =
        run(
            "vm",
            "create",
            "build-42",
            "--cpu",
            "2",
            "--memory",
            "1024",
            "--worker-label",
            "disk=ssd",
            "-e",
            "A=b",
            "--restart",
            "OnFailure",
            "--image",
            "ghcr.io/acme/build:7",
            "--ttl",
            "10m",
            "--",
            "sleep",
            "3600");
    assertEquals(0, r.code(), r.err());
    JsonNode sent = json.readTree(api.last().body());
    assertEquals(
        json.readTree(
            """
        {"name":"build-42","image":"ghcr.io/acme/build:7","resources":{"cpu":2,"memory":1024},"labels":{"disk":"ssd"},
         "env":{"A":"b"},"restartPolicy":"OnFailure","ttlAfterFinished":"10m","command":["sleep","3600"]}"""),
        sent);
    assertEquals(
        List.of(
            "NAME       STATUS    WORKER   RESTARTS   SET   MESSAGE",
            "build-42   pending   -        0          -     waiting for the scheduler"),
        r.out().lines().toList());
  }

  @Test
  void aLeaseIsGivenAtCreationExtendedByTheExtendVerbAndDescribed() throws Exception {
    api.on("POST /v1/vms", StandInApi.Reply.json(201, vm("ci", "pending", null, 0, "waiting")));
    Result made =
        run("vm", "create", "ci", "--max-run", "90m", "--on-expiry", "delete", "--", "true");
    assertEquals(0, made.code(), made.err());
    assertEquals(
        json.readTree(
            "{\"name\":\"ci\",\"maxRunDuration\":\"1h30m\",\"onExpiry\":\"delete\",\"command\":[\"true\"]}"),
        json.readTree(api.last().body()));

    com.fasterxml.jackson.databind.node.ObjectNode running =
        (com.fasterxml.jackson.databind.node.ObjectNode)
            json.readTree(vm("ci", "running", "w1", 0, "running"));
    running.put("maxRunDuration", "1h30m");
    running.put("onExpiry", "delete");
    running.put("leaseExpiresAt", "2026-11-29T18:00:00Z");
    api.on("PUT /v1/vms/ci/lease", StandInApi.Reply.json(200, running.toString()));
    Result extended = run("vm", "extend", "ci", "2h");
    assertEquals(0, extended.code(), extended.err());
    assertEquals("PUT /v1/vms/ci/lease", api.last().method() + " " + api.last().target());
    assertEquals(json.readTree("{\"extendBy\":\"2h\"}"), json.readTree(api.last().body()));
    assertEquals("vm ci: lease runs out at 2026-11-29T18:00:00Z\n", extended.out());

    Result bad = run("vm", "extend", "ci", "soon");
    assertEquals(ExitCodes.USAGE, bad.code());
    assertTrue(bad.err().contains("DURATION"), bad.err());
  }

  @Test
  void aPersistentDiskAndItsSizeComeFromFlagsAndDescribeShowsWhereItIs() throws Exception {
    api.on("POST /v1/vms", StandInApi.Reply.json(201, vm("dev", "pending", null, 0, "waiting")));
    Result made =
        run(
            "vm",
            "create",
            "dev",
            "--runtime",
            "qemu",
            "--image",
            "https://example.com/d.qcow2",
            "--persistent-disk",
            "--disk-size",
            "20",
            "--migration",
            "restart");
    assertEquals(0, made.code(), made.err());
    assertEquals(
        json.readTree("{\"persistent\":true,\"sizeGi\":20}"),
        json.readTree(api.last().body()).get("disk"));
    assertEquals("restart", json.readTree(api.last().body()).get("migration").asText());
    com.fasterxml.jackson.databind.node.ObjectNode shown =
        (com.fasterxml.jackson.databind.node.ObjectNode)
            json.readTree(vm("dev", "running", "w1", 0, "running"));
    shown.set("disk", json.readTree("{\"persistent\":true,\"sizeGi\":20}"));
    shown.put("diskOn", "w1");
    shown.put("migration", "live");
    api.on("GET /v1/vms/dev", StandInApi.Reply.json(200, shown.toString()));
    api.on("GET /v1/vms/dev/events", StandInApi.Reply.json(200, "{\"items\":[]}"));
    Result described = run("vm", "describe", "dev");
    assertEquals(0, described.code(), described.err());
    assertTrue(
        described.out().lines().anyMatch(l -> l.matches("Disk: +persistent, 20 GiB, on w1")),
        described.out());
    assertTrue(
        described.out().lines().anyMatch(l -> l.matches("Migration: +live: .*")), described.out());
  }

  @Test
  void volumesAreMadeListedAndMountedFromFlagsAndDescribeNamesThem() throws Exception {
    String cache =
        "{\"name\":\"cache\",\"sizeGi\":10,\"worker\":\"w1\",\"vm\":null,"
            + "\"createdAt\":\"2026-11-23T07:00:00Z\"}";
    api.on("POST /v1/volumes", StandInApi.Reply.json(201, cache));
    api.on("GET /v1/volumes", StandInApi.Reply.json(200, "{\"items\":[" + cache + "]}"));
    api.on("DELETE /v1/volumes/cache", StandInApi.Reply.json(204, ""));
    Result made = run("volume", "create", "cache", "--size", "10", "--worker", "w1");
    assertEquals(0, made.code(), made.err());
    assertEquals(
        json.readTree("{\"name\":\"cache\",\"sizeGi\":10,\"worker\":\"w1\"}"),
        json.readTree(api.last().body()));
    Result listed = run("volume", "list");
    assertTrue(
        listed.out().lines().toList().get(1).matches("cache +10 +w1 +- +2026-11-23T07:00:00Z"),
        listed.out());
    assertEquals("volume cache deleted\n", run("volume", "delete", "cache").out());

    api.on("POST /v1/vms", StandInApi.Reply.json(201, vm("dev", "pending", null, 0, "waiting")));
    Result vm =
        run(
            "vm",
            "create",
            "dev",
            "--runtime",
            "qemu",
            "--image",
            "https://example.com/d.qcow2",
            "--volume",
            "cache:/var/cache",
            "--volume",
            "scratch");
    assertEquals(0, vm.code(), vm.err());
    assertEquals(
        json.readTree("[{\"name\":\"cache\",\"mountPath\":\"/var/cache\"},{\"name\":\"scratch\"}]"),
        json.readTree(api.last().body()).get("volumes"));
    com.fasterxml.jackson.databind.node.ObjectNode shown =
        (com.fasterxml.jackson.databind.node.ObjectNode)
            json.readTree(vm("dev", "running", "w1", 0, "running"));
    shown.set(
        "volumes",
        json.readTree(
            "[{\"name\":\"cache\",\"mountPath\":\"/var/cache\"},{\"name\":\"scratch\"}]"));
    api.on("GET /v1/vms/dev", StandInApi.Reply.json(200, shown.toString()));
    api.on("GET /v1/vms/dev/events", StandInApi.Reply.json(200, "{\"items\":[]}"));
    Result described = run("vm", "describe", "dev");
    assertTrue(
        described.out().lines().anyMatch(l -> l.matches("Volumes: +cache at /var/cache, scratch")),
        described.out());
  }

  @Test
  void aSnapshotSendsItsImageAndPrintsItPinned() throws Exception {
    api.on(
        "POST /v1/vms/dev/snapshot",
        StandInApi.Reply.json(
            201,
            "{\"image\":\"oci://reg/snaps/dev:1\",\"digest\":\"sha256:ab\","
                + "\"pinned\":\"oci://reg/snaps/dev:1@sha256:ab\",\"bytes\":5,\"worker\":\"w1\"}"));
    Result made = run("vm", "snapshot", "dev", "oci://reg/snaps/dev:1");
    assertEquals(0, made.code(), made.err());
    assertEquals(
        json.readTree("{\"image\":\"oci://reg/snaps/dev:1\"}"), json.readTree(api.last().body()));
    assertEquals("oci://reg/snaps/dev:1@sha256:ab\n", made.out());
  }

  @Test
  void aPoolIsMadeFromFlagsAndAVmClaimedFromItIsNamedAndNothingElse() throws Exception {
    api.on(
        "POST /v1/pools",
        StandInApi.Reply.json(
            201,
            "{\"name\":\"runners\",\"minReady\":2,\"max\":5,"
                + "\"status\":{\"ready\":0,\"starting\":2,\"claimed\":0,\"message\":null}}"));
    Result made =
        run("pool", "create", "runners", "--min-ready", "2", "--max", "5", "--", "sleep", "60");
    assertEquals(0, made.code(), made.err());
    var sent = json.readTree(api.last().body());
    assertEquals(2, sent.path("minReady").asInt());
    assertEquals(5, sent.path("max").asInt());
    assertEquals("[\"sleep\",\"60\"]", sent.path("template").path("command").toString());
    assertEquals("running", sent.path("standby").asText(), "ready VMs wait running unless told");
    assertTrue(made.out().contains("runners"), made.out());
    Result suspended =
        run(
            "pool",
            "create",
            "devboxes",
            "--min-ready",
            "1",
            "--max",
            "3",
            "--standby",
            "suspended",
            "--runtime",
            "qemu",
            "--image",
            "https://example.com/i.qcow2",
            "--persistent-disk");
    assertEquals(0, suspended.code(), suspended.err());
    assertEquals("suspended", json.readTree(api.last().body()).path("standby").asText());

    api.on(
        "POST /v1/vms", StandInApi.Reply.json(201, "{\"name\":\"job-1\",\"status\":\"running\"}"));
    Result claimed = run("vm", "create", "job-1", "--from-pool", "runners");
    assertEquals(0, claimed.code(), claimed.err());
    assertEquals(
        json.readTree("{\"name\":\"job-1\",\"fromPool\":\"runners\"}"),
        json.readTree(api.last().body()));
    Result withCommand = run("vm", "create", "job-2", "--from-pool", "runners", "--", "true");
    assertEquals(ExitCodes.USAGE, withCommand.code(), withCommand.out());

    Path userData = Files.writeString(home.resolve("token.sh"), "#!/bin/sh\necho token\n");
    Result withData =
        run("vm", "create", "job-3", "--from-pool", "runners", "--user-data", userData.toString());
    assertEquals(0, withData.code(), withData.err());
    assertEquals(
        json.readTree(
            "{\"name\":\"job-3\",\"fromPool\":\"runners\","
                + "\"guest\":{\"userData\":\"#!/bin/sh\\necho token\\n\"}}"),
        json.readTree(api.last().body()));
  }

  @Test
  void aQemuVmsGuestComesFromFlagsAndItsUserDataFromAFile() throws Exception {
    Path userData =
        Files.writeString(home.resolve("user-data"), "#cloud-config\nruncmd: [[echo, hi]]\n");
    api.on("POST /v1/vms", StandInApi.Reply.json(201, vm("web", "pending", null, 0, "waiting")));
    assertEquals(
        0,
        run(
                "vm",
                "create",
                "web",
                "--runtime",
                "qemu",
                "--image",
                "https://example.com/d.qcow2",
                "--kernel",
                "file:///k",
                "--initrd",
                "file:///i",
                "--kernel-args",
                "quiet",
                "--user-data",
                userData.toString())
            .code());
    assertEquals(
        json.readTree(
            """
        {"name":"web","image":"https://example.com/d.qcow2","runtime":"qemu","guest":{"kernel":"file:///k",
         "initrd":"file:///i","kernelArgs":"quiet","userData":"#cloud-config\\nruncmd: [[echo, hi]]\\n"}}"""),
        json.readTree(api.last().body()));
    Result missing =
        run(
            "vm",
            "create",
            "web",
            "--runtime",
            "qemu",
            "--user-data",
            home.resolve("nothing").toString());
    assertEquals(ExitCodes.USAGE, missing.code());
    assertTrue(missing.err().contains("cannot read --user-data"), missing.err());
  }

  @Test
  void whatGetPrintsAsYamlCreatesTheSameVmAgain() throws Exception {
    String shown =
        "{\"name\":\"web-2\",\"runtime\":\"process\",\"command\":[\"sleep\",\"3600\"],"
            + "\"env\":{\"PORT\":\"8080\",\"DEBUG\":\"true\"},\"labels\":{},"
            + "\"resources\":{\"cpu\":1,\"memory\":512},\"restartPolicy\":\"Never\","
            + "\"status\":\"running\",\"worker\":\"w1\",\"restartCount\":0,\"set\":null}";
    api.on("GET /v1/vms/web-2", StandInApi.Reply.json(200, shown));
    Result got = run("vm", "get", "web-2", "-o", "yaml");
    assertEquals(0, got.code(), got.err());
    Path file = Files.writeString(home.resolve("web-2.yaml"), got.out());
    api.on("POST /v1/vms", StandInApi.Reply.json(201, vm("web-2", "pending", null, 0, "waiting")));

    assertEquals(0, run("vm", "create", "-f", file.toString()).code());

    JsonNode sent = json.readTree(api.last().body());
    assertEquals(json.readTree("[\"sleep\",\"3600\"]"), sent.get("command"), got.out());
    assertEquals(json.readTree("{\"PORT\":\"8080\",\"DEBUG\":\"true\"}"), sent.get("env"));
  }

  @Test
  void aHandWrittenYamlCommandIsTakenAsWritten() throws Exception {
    Path file =
        Files.writeString(
            home.resolve("hand.yaml"), "name: hand\ncommand: [sleep, 3600]\nenv: {N: 5}\n");
    api.on("POST /v1/vms", StandInApi.Reply.json(201, vm("hand", "pending", null, 0, "waiting")));
    assertEquals(0, run("vm", "create", "-f", file.toString()).code());
    JsonNode sent = json.readTree(api.last().body());
    assertEquals(json.readTree("[\"sleep\",\"3600\"]"), sent.get("command"));
    assertEquals(json.readTree("{\"N\":\"5\"}"), sent.get("env"));
  }

  @Test
  void describeTellsStateSpecTimesAndTheNewestEvents() throws Exception {
    api.on(
        "GET /v1/vms/web",
        StandInApi.Reply.json(
            200,
            "{\"name\":\"web\",\"status\":\"pending\",\"worker\":null,\"restartCount\":2,"
                + "\"statusMessage\":\"no worker has 4 cpu free (most: 2)\",\"runtime\":\"process\","
                + "\"command\":[\"sh\",\"-c\",\"sleep 60; echo it's done\"],\"resources\":{\"cpu\":4,\"memory\":512},"
                + "\"labels\":{},\"env\":{},\"restartPolicy\":\"OnFailure\",\"maxRestarts\":3,"
                + "\"priority\":70,\"constraints\":[{\"label\":\"zone\",\"operator\":\"in\",\"values\":[\"a\",\"b\"]}],"
                + "\"workerPool\":\"gpu\",\"restartWindow\":\"1h\",\"createdAt\":\"2026-11-26T10:00:00Z\",\"set\":null,"
                + "\"workflowUrl\":\"http://127.0.0.1:8233/namespaces/default/workflows/vm-web\"}"));
    StringBuilder events = new StringBuilder();
    for (int i = 1; i <= 12; i++) {
      events.append(i == 1 ? "" : ",");
      events.append(
          "{\"time\":\"2026-11-26T10:00:"
              + (10 + i)
              + "Z\",\"type\":\"e"
              + i
              + "\",\"message\":\"m\"}");
    }
    api.on(
        "GET /v1/vms/web/events",
        StandInApi.Reply.json(200, "{\"items\":[" + events + "],\"nextCursor\":null}"));

    Result r = run("vm", "describe", "web");

    assertEquals(0, r.code(), r.err());
    List<String> lines = r.out().lines().toList();
    assertTrue(lines.contains("Status:         pending, restart 2"), r.out());
    assertTrue(lines.contains("Waiting:        no worker has 4 cpu free (most: 2)"), r.out());
    assertTrue(
        lines.contains("Command:        sh -c 'sleep 60; echo it'\\''s done'"),
        "shell-quoted, to paste back: " + r.out());
    assertTrue(lines.contains("Resources:      cpu=4 memory=512"), r.out());
    assertTrue(lines.contains("Priority:       70"), r.out());
    assertTrue(lines.contains("Constraints:    zone in a,b"), r.out());
    assertTrue(lines.contains("Worker pool:    gpu"), r.out());
    assertTrue(
        lines.contains("Restart policy: OnFailure, at most 3 after failures within 1h"), r.out());
    assertTrue(
        lines.contains("Workflow:       http://127.0.0.1:8233/namespaces/default/workflows/vm-web"),
        "its life in the Temporal UI: " + r.out());
    assertTrue(r.out().contains("e12"), "the newest event");
    assertTrue(r.out().contains("  2026-11-26T10:00:13Z  e3  m"), "ten of them: " + r.out());
    assertTrue(!r.out().contains("  e2  "), "not the older ones");
  }

  @Test
  void aGuestsEgressAndIsolationAreAskedOnCreate() throws Exception {
    api.on("POST /v1/vms", StandInApi.Reply.json(201, vm("g", "pending", null, 0, "waiting")));
    String[][] table = {
      {"none", "{\"egress\":\"none\"}"},
      {"internet", "{\"egress\":\"internet\"}"},
      {
        "203.0.113.0/24, api.github.com",
        "{\"egress\":\"allow\",\"allow\":[\"203.0.113.0/24\",\"api.github.com\"]}"
      },
    };
    for (String[] row : table) {
      List<String> args =
          new java.util.ArrayList<>(
              List.of(
                  "vm create g --runtime qemu --image file:///d.qcow2 --isolation optional"
                      .split(" ")));
      args.addAll(List.of("--egress", row[0]));
      Result created = run(args.toArray(String[]::new));
      assertEquals(0, created.code(), created.err());
      assertEquals(json.readTree(row[1]), json.readTree(api.last().body()).get("network"), row[0]);
      assertEquals("optional", json.readTree(api.last().body()).get("isolation").asText());
    }
  }

  @Test
  void checksAreAskedOnCreateAndWaitWaitsUntilTheVmIsReady() throws Exception {
    api.on("POST /v1/vms", StandInApi.Reply.json(201, vm("r", "pending", null, 0, "waiting")));
    String running = vm("r", "running", "w1", 0, null);
    String notReady =
        running.substring(0, running.length() - 1)
            + ",\"ready\":false,\"readinessMessage\":\"readiness check tcp on port ssh: refused\"}";
    String ready = running.substring(0, running.length() - 1) + ",\"ready\":true}";
    api.on(
        "GET /v1/vms/r",
        StandInApi.Reply.json(200, notReady),
        StandInApi.Reply.json(200, notReady),
        StandInApi.Reply.json(200, ready));
    Result created =
        run(
            "vm",
            "create",
            "r",
            "--port",
            "ssh:22",
            "--readiness",
            "tcp:ssh",
            "--liveness",
            "exec:test -f /alive",
            "--wait",
            "--",
            "sleep",
            "9");
    assertEquals(0, created.code(), created.err());
    assertTrue(
        api.requests.stream().filter(r -> r.target().equals("/v1/vms/r")).count() >= 3,
        "waited past running until ready");
    assertTrue(
        created.err().contains("not ready: readiness check tcp on port ssh: refused"),
        created.err());
    com.fasterxml.jackson.databind.JsonNode body =
        json.readTree(
            api.requests.stream()
                .filter(r -> r.method().equals("POST") && r.target().equals("/v1/vms"))
                .findFirst()
                .orElseThrow()
                .body());
    assertEquals(json.readTree("{\"tcp\":{\"port\":\"ssh\"}}"), body.get("readiness"));
    assertEquals(
        json.readTree("{\"exec\":{\"command\":[\"test\",\"-f\",\"/alive\"]}}"),
        body.get("liveness"));
    Result bad = run("vm", "create", "r", "--readiness", "udp:53", "--", "sleep", "9");
    assertEquals(2, bad.code());
    assertEquals(
        "rota: --readiness udp:53 must be guest-agent, tcp:PORT, http:PORT[/PATH] or exec:COMMAND\n",
        bad.err());
  }

  @Test
  void portsAreNamedOnCreateAndDescribeSaysWhereTheyAreReached() throws Exception {
    api.on("POST /v1/vms", StandInApi.Reply.json(201, vm("srv", "pending", null, 0, "waiting")));
    Result created =
        run("vm", "create", "srv", "--port", "ssh:22", "--port", "web:8080", "--", "sleep", "9");
    assertEquals(0, created.code(), created.err());
    assertEquals(
        json.readTree("[{\"name\":\"ssh\",\"port\":22},{\"name\":\"web\",\"port\":8080}]"),
        json.readTree(api.last().body()).get("ports"));
    Result bad = run("vm", "create", "srv", "--port", "ssh", "--", "sleep", "9");
    assertEquals(2, bad.code());
    assertEquals("rota: --port ssh must be NAME:PORT, such as ssh:22\n", bad.err());

    api.on(
        "GET /v1/vms/srv",
        StandInApi.Reply.json(
            200,
            "{\"name\":\"srv\",\"status\":\"running\",\"worker\":\"w1\",\"restartCount\":0,"
                + "\"runtime\":\"process\",\"command\":[\"sleep\",\"9\"],\"resources\":{},"
                + "\"labels\":{},\"env\":{},\"restartPolicy\":\"Never\",\"createdAt\":\"2026-11-26T10:00:00Z\","
                + "\"ports\":[{\"name\":\"ssh\",\"port\":22},{\"name\":\"web\",\"port\":8080}],"
                + "\"endpoints\":[{\"name\":\"ssh\",\"port\":22,\"address\":\"10.0.0.5:20001\"}]}"));
    api.on(
        "GET /v1/vms/srv/events", StandInApi.Reply.json(200, "{\"items\":[],\"nextCursor\":null}"));
    api.on(
        "GET /v1/vms",
        StandInApi.Reply.json(
            200,
            "{\"items\":[{\"name\":\"srv\",\"status\":\"running\",\"endpoints\":"
                + "[{\"name\":\"ssh\",\"port\":22,\"address\":\"10.0.0.5:20001\"}]}],\"nextCursor\":null}"));
    assertTrue(
        run("vm", "list", "-o", "wide").out().contains("ssh=10.0.0.5:20001"),
        "the wide list shows where its ports are reached");
    Result described = run("vm", "describe", "srv");
    assertTrue(
        described
            .out()
            .lines()
            .toList()
            .contains("Ports:          ssh 22 -> 10.0.0.5:20001, web 8080"),
        described.out());
  }

  @Test
  void sshGoesThroughTheServerAsItsProxyCommand() {
    assertEquals(
        List.of(
            "ssh",
            "-o",
            "ProxyCommand='/usr/bin/java' '-jar' '/opt/it'\\''s/rota-cli.jar' 'vm' 'connect' 'web' 'ssh'",
            "-o",
            "HostKeyAlias=rota-vm-web-1764400000000",
            "-o",
            "UserKnownHostsFile=/home/me/.config/rota/known_hosts",
            "-o",
            "StrictHostKeyChecking=accept-new",
            "-o",
            "HashKnownHosts=no",
            "-i",
            "key",
            "-l",
            "debian",
            "web",
            "uptime"),
        SshCommand.argv(
            "ssh",
            List.of("/usr/bin/java", "-jar", "/opt/it's/rota-cli.jar"),
            "web",
            "ssh",
            "debian",
            "key",
            Path.of("/home/me/.config/rota/known_hosts"),
            "rota-vm-web-1764400000000",
            List.of("uptime")));
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      textBlock =
          """
          vm ssh web uname -a                       | vm ssh web -- uname -a
          vm ssh web -l root ls -l                  | vm ssh web -l root -- ls -l
          vm ssh -l root -i key web ls -l           | vm ssh -l root -i key web -- ls -l
          vm ssh web --port=ssh2 id                 | vm ssh web --port=ssh2 -- id
          vm ssh web -- ls -l                       | vm ssh web -- ls -l
          vm ssh web                                | vm ssh web
          vm exec web -- ls -l                      | vm exec web -- ls -l
          --server http://h:1 vm ssh web uptime     | --server http://h:1 vm ssh web -- uptime
          """)
  void aCommandAfterTheVmsNameNeedsNoDoubleDash(String given, String read) {
    picocli.CommandLine cli =
        new picocli.CommandLine(new RotaCli(env, null, null, null, null, false));
    assertEquals(
        List.of(read.split(" ")),
        List.of(
            SshArguments.delimited(
                cli.getSubcommands().get("vm").getSubcommands().get("ssh").getCommandSpec(),
                given.split(" "))));
  }

  @Test
  void eachSubmissionOfAVmIsItsOwnHostAndOnlyItsLatestKeyIsKept() throws Exception {
    Path file = home.resolve("known_hosts");
    Files.write(
        file,
        List.of(
            "rota-vm-web-1000 ssh-ed25519 AAAAold",
            "rota-vm-web-2-1500 ssh-ed25519 AAAAother",
            "rota-vm-web-2000 ssh-ed25519 AAAAcurrent",
            "gitlab.example ssh-ed25519 AAAAelse"));
    String alias = GuestHostKeys.alias("web", Instant.ofEpochMilli(2000));
    assertEquals("rota-vm-web-2000", alias);
    GuestHostKeys.forgetOthers(file, "web", alias);
    assertEquals(
        List.of(
            "rota-vm-web-2-1500 ssh-ed25519 AAAAother",
            "rota-vm-web-2000 ssh-ed25519 AAAAcurrent",
            "gitlab.example ssh-ed25519 AAAAelse"),
        Files.readAllLines(file));
    GuestHostKeys.forgetOthers(file, "web", GuestHostKeys.alias("web", Instant.ofEpochMilli(3000)));
    assertEquals(
        List.of("rota-vm-web-2-1500 ssh-ed25519 AAAAother", "gitlab.example ssh-ed25519 AAAAelse"),
        Files.readAllLines(file),
        "made again: the earlier key is gone, the new one is taken when ssh first meets it");
  }

  @Test
  void listsPrintNamesAloneOrWideColumns() throws Exception {
    api.on(
        "GET /v1/vms",
        StandInApi.Reply.json(
            200,
            "{\"items\":["
                + vm("a", "running", "w1", 0, null)
                + ","
                + vm("b", "pending", null, 0, "waiting")
                + "],\"nextCursor\":null}"));
    assertEquals(List.of("a", "b"), run("vm", "list", "-o", "name").out().lines().toList());
    String wide = run("vm", "list", "-o", "wide").out();
    assertTrue(wide.lines().findFirst().orElse("").contains("CREATED"), wide);
    assertTrue(!run("vm", "list").out().contains("CREATED"), "the default table stays narrow");
  }

  @Test
  void aVmWaitingToBeRestartedSaysWhenInListAndDescribe() throws Exception {
    String waiting =
        vm("c", "failed", "w1", 2, "exited 1")
            .replace("\"set\":null", "\"set\":null,\"restartAt\":\"2026-11-26T15:04:12.345Z\"");
    api.on(
        "GET /v1/vms",
        StandInApi.Reply.json(200, "{\"items\":[" + waiting + "],\"nextCursor\":null}"));
    String list = run("vm", "list").out();
    assertTrue(list.contains("failed (restart at 15:04:12Z)"), list);
    api.on("GET /v1/vms/c", StandInApi.Reply.json(200, waiting));
    api.on(
        "GET /v1/vms/c/events", StandInApi.Reply.json(200, "{\"items\":[],\"nextCursor\":null}"));
    String described = run("vm", "describe", "c").out();
    assertTrue(described.contains("2026-11-26T15:04:12.345Z"), described);
  }

  @Test
  void applyCreatesWhatIsMissingLeavesAloneWhatIsSoAndUpdatesASetButNotAVm() throws Exception {
    String held =
        "{\"name\":\"web-1\",\"command\":[\"sleep\",\"3600\"],\"resources\":{\"cpu\":1,\"memory\":512},"
            + "\"restartPolicy\":\"Never\",\"status\":\"running\",\"worker\":\"w1\"}";
    Path file =
        Files.writeString(
            home.resolve("all.yaml"),
            "items:\n"
                + "- name: web-1\n  command: [sleep, 3600]\n  resources: {memory: 512Mi}\n  status: failed\n"
                + "- name: fresh\n  command: [sleep, 1]\n"
                + "- name: pool\n  replicas: 3\n  template: {command: [sleep, 9]}\n");
    api.on("GET /v1/vms/web-1", StandInApi.Reply.json(200, held));
    api.on("GET /v1/vms/fresh", StandInApi.Reply.problem(404, "vm 'fresh' not found"));
    api.on("POST /v1/vms", StandInApi.Reply.json(201, vm("fresh", "pending", null, 0, null)));
    api.on(
        "GET /v1/vm-sets/pool",
        StandInApi.Reply.json(
            200,
            "{\"name\":\"pool\",\"replicas\":2,\"template\":{\"command\":[\"sleep\",\"9\"]}}"));
    api.on("PUT /v1/vm-sets/pool", StandInApi.Reply.json(200, "{\"name\":\"pool\"}"));
    Result r = run("apply", "-f", file.toString());
    assertEquals(0, r.code(), r.err());
    assertEquals(
        List.of("vm web-1 unchanged", "vm fresh created", "vm-set pool configured (replicas)"),
        r.out().lines().toList(),
        "512Mi is the 512 held; the server's own fields (status) are not the spec");
    List<String> writes =
        api.requests.stream()
            .filter(q -> !q.method().equals("GET"))
            .map(q -> q.method() + " " + q.target())
            .toList();
    assertEquals(List.of("POST /v1/vms", "PUT /v1/vm-sets/pool"), writes);
    assertEquals(
        json.readTree("{\"name\":\"fresh\",\"command\":[\"sleep\",\"1\"]}"),
        json.readTree(
            api.requests.stream()
                .filter(q -> q.method().equals("POST"))
                .findFirst()
                .orElseThrow()
                .body()),
        "what the file says, its scalars as written");

    Path changed =
        Files.writeString(home.resolve("web-1.yaml"), "name: web-1\ncommand: [sleep, 60]\n");
    Result refused = run("apply", "-f", changed.toString());
    assertEquals(ExitCodes.CONFLICT, refused.code());
    assertTrue(
        refused.err().startsWith("rota: vm web-1 exists, and the file changes its command: "),
        refused.err());
  }

  /**
   * A set made of a VM template: the file cannot say whether the expanded template differs, so the
   * server is asked, and its answer's version says whether the set changed.
   */
  @Test
  void applyOfASetMadeOfATemplateAsksTheServerAndReadsTheVersion() throws Exception {
    Path file =
        Files.writeString(
            home.resolve("set.yaml"),
            "name: ci\nreplicas: 2\nfromTemplate: runner\nparameters: {size: large}\n");
    api.on(
        "GET /v1/vm-sets/ci",
        StandInApi.Reply.json(200, "{\"name\":\"ci\",\"replicas\":2,\"version\":3}"));
    api.on("PUT /v1/vm-sets/ci", StandInApi.Reply.json(200, "{\"name\":\"ci\",\"version\":4}"));
    Result changed = run("apply", "-f", file.toString());
    assertEquals(0, changed.code(), changed.err());
    assertEquals("vm-set ci configured (template, from runner)\n", changed.out());

    api.on("PUT /v1/vm-sets/ci", StandInApi.Reply.json(200, "{\"name\":\"ci\",\"version\":3}"));
    Result same = run("apply", "-f", file.toString());
    assertEquals("vm-set ci unchanged\n", same.out(), "the template expands as it did");
    assertEquals(
        json.readTree(
            "{\"name\":\"ci\",\"replicas\":2,\"fromTemplate\":\"runner\",\"parameters\":{\"size\":\"large\"}}"),
        json.readTree(
            api.requests.stream()
                .filter(q -> q.method().equals("PUT"))
                .reduce((a, b) -> b)
                .orElseThrow()
                .body()),
        "the file as written, for the server to expand");

    api.on(
        "PUT /v1/vm-sets/ci?dryRun=true",
        StandInApi.Reply.json(200, "{\"name\":\"ci\",\"version\":4}"));
    Result planned = run("--output", "json", "apply", "-f", file.toString(), "--dry-run");
    assertEquals(0, planned.code(), planned.err());
    assertTrue(planned.out().contains("\"version\""), "the server's plan: " + planned.out());
  }

  @Test
  void applyDryRunAsksTheServersDryRunsAndVmSetDiffComparesVersionsAndFiles() throws Exception {
    Path file =
        Files.writeString(
            home.resolve("plan.yaml"),
            "items:\n"
                + "- name: solo\n  command: [true]\n"
                + "- name: web\n  replicas: 2\n  template: {command: [sleep, 200]}\n");
    api.on("GET /v1/vms/solo", StandInApi.Reply.problem(404, "vm 'solo' not found"));
    api.on(
        "POST /v1/vms?dryRun=true",
        StandInApi.Reply.json(
            200,
            """
            {"kind":"vm","name":"solo","action":"create","changes":[],"replicas":null,
             "placements":[{"vm":"solo","worker":null,"why":null,"waiting":"no workers are registered"}]}"""));
    api.on(
        "GET /v1/vm-sets/web",
        StandInApi.Reply.json(
            200,
            "{\"name\":\"web\",\"replicas\":2,\"template\":{\"command\":[\"sleep\",\"100\"]}}"));
    String plan =
        """
        {"kind":"vm-set","name":"web","action":"update",
         "changes":[{"field":"template.command","from":["sleep","100"],"to":["sleep","200"]}],
         "replicas":{"make":[],"remove":["web-1"],"replace":["web-0","web-1"]},
         "placements":[],"set":{"version":2}}""";
    api.on("PUT /v1/vm-sets/web?dryRun=true", StandInApi.Reply.json(200, plan));
    Result r = run("apply", "-f", file.toString(), "--dry-run");
    assertEquals(0, r.code(), r.err());
    assertEquals(
        List.of(
            "vm solo: create",
            "  solo waits: no workers are registered",
            "vm-set web: update (version 2)",
            "  template.command: [\"sleep\",\"100\"] -> [\"sleep\",\"200\"]",
            "  rollout replaces web-0, web-1",
            "  removes web-1"),
        r.out().lines().toList());
    assertTrue(
        api.requests.stream()
            .noneMatch(q -> !q.method().equals("GET") && !q.target().contains("dryRun=true")),
        "nothing but dry runs written");

    Path one =
        Files.writeString(
            home.resolve("web.yaml"),
            "name: web\nreplicas: 2\ntemplate: {command: [sleep, 200]}\n");
    api.on("PUT /v1/vm-sets/web?dryRun=true", StandInApi.Reply.json(200, plan));
    Result diffed = run("vm-set", "diff", "-f", one.toString());
    assertEquals(0, diffed.code(), diffed.err());
    assertEquals("vm-set web: update (version 2)", diffed.out().lines().findFirst().orElse(""));

    api.on(
        "GET /v1/vm-sets/web/versions",
        StandInApi.Reply.json(
            200,
            """
            {"items":[
              {"version":3,"current":true,"template":{"command":["sleep","300"],"resources":{"cpu":2}}},
              {"version":2,"current":false,"template":{"command":["sleep","200"],"resources":{"cpu":1}}},
              {"version":1,"current":false,"template":{"command":["sleep","100"],"resources":{"cpu":1}}}]}"""));
    Result versions = run("vm-set", "diff", "web");
    assertEquals(0, versions.code(), versions.err());
    assertEquals(
        List.of(
            "vm-set web: version 2 -> 3",
            "  template.command: [\"sleep\",\"200\"] -> [\"sleep\",\"300\"]",
            "  template.resources.cpu: 1 -> 2"),
        versions.out().lines().toList());
    api.on(
        "GET /v1/vm-sets/web/versions",
        StandInApi.Reply.json(
            200, "{\"items\":[{\"version\":1,\"current\":true,\"template\":{}}]}"));
    Result missing = run("vm-set", "diff", "web", "1", "4");
    assertEquals(ExitCodes.USAGE, missing.code());
    assertTrue(missing.err().contains("has no version 4; it has 1 to 1"), missing.err());
  }

  @Test
  void aSelectorIsTheServersLabelSelector() throws Exception {
    String a = "{\"name\":\"a\",\"health\":\"ready\",\"labels\":{\"zone\":\"x\",\"disk\":\"ssd\"}}";
    api.on(
        "GET /v1/workers?labelSelector=zone%3Dx%2Cdisk%3Dssd",
        StandInApi.Reply.json(200, "{\"items\":[" + a + "],\"nextCursor\":null}"));
    assertEquals(
        List.of("a"),
        run("worker", "list", "-l", "zone=x", "-l", "disk=ssd", "-o", "name")
            .out()
            .lines()
            .toList());
    Result bad = run("worker", "list", "-l", "zone");
    assertEquals(ExitCodes.USAGE, bad.code());
    assertTrue(bad.err().contains("KEY=VALUE"), bad.err());
  }

  @Test
  void theRestartWindowIsADurationAsTtlIs() throws Exception {
    api.on("POST /v1/vms", StandInApi.Reply.json(201, vm("r", "pending", null, 0, "waiting")));
    Result r =
        run("vm", "create", "r", "--max-restarts", "3", "--restart-window", "30m", "--", "x");
    assertEquals(0, r.code(), r.err());
    assertEquals("30m", json.readTree(api.last().body()).path("restartWindow").asText());
    Result picky =
        run(
            "vm",
            "create",
            "r",
            "--constraint",
            "zone in a, b",
            "--constraint",
            "gpu exists",
            "--constraint",
            "kernel version >= 6.1, < 7",
            "--",
            "x");
    assertEquals(0, picky.code(), picky.err());
    assertEquals(
        json.readTree(
            "[{\"label\":\"zone\",\"operator\":\"in\",\"values\":[\"a\",\"b\"]},"
                + "{\"label\":\"gpu\",\"operator\":\"exists\",\"values\":[]},"
                + "{\"label\":\"kernel\",\"operator\":\"version\",\"values\":[\">= 6.1, < 7\"]}]"),
        json.readTree(api.last().body()).path("constraints"));
    assertEquals(0, run("vm", "create", "r", "--worker-pool", "gpu", "--", "x").code());
    assertEquals("gpu", json.readTree(api.last().body()).path("workerPool").asText());
    Result tolerant =
        run(
            "vm",
            "create",
            "r",
            "--toleration",
            "dedicated=gpu:NoSchedule",
            "--toleration",
            "spot",
            "--toleration",
            "*:PreferNoSchedule",
            "--",
            "x");
    assertEquals(0, tolerant.code(), tolerant.err());
    assertEquals(
        json.readTree(
            "[{\"key\":\"dedicated\",\"operator\":\"Equal\",\"value\":\"gpu\","
                + "\"effect\":\"NoSchedule\"},"
                + "{\"key\":\"spot\",\"operator\":\"Exists\"},"
                + "{\"operator\":\"Exists\",\"effect\":\"PreferNoSchedule\"}]"),
        json.readTree(api.last().body()).path("tolerations"));
    Result fond =
        run(
            "vm",
            "create",
            "r",
            "--affinity",
            "50 zone in a, b",
            "--affinity",
            "-20 spot exists",
            "--",
            "x");
    assertEquals(0, fond.code(), fond.err());
    assertEquals(
        json.readTree(
            "[{\"label\":\"zone\",\"operator\":\"in\",\"values\":[\"a\",\"b\"],\"weight\":50},"
                + "{\"label\":\"spot\",\"operator\":\"exists\",\"values\":[],\"weight\":-20}]"),
        json.readTree(api.last().body()).path("affinities"));
    Result unweighed = run("vm", "create", "r", "--affinity", "zone = a", "--", "x");
    assertEquals(ExitCodes.USAGE, unweighed.code());
    assertTrue(unweighed.err().contains("give WEIGHT LABEL OPERATOR [VALUES]"), unweighed.err());
    Result lonely = run("vm", "create", "r", "--constraint", "zone", "--", "x");
    assertEquals(ExitCodes.USAGE, lonely.code());
    assertTrue(lonely.err().contains("give LABEL OPERATOR [VALUES]"), lonely.err());
    Result urgent = run("vm", "create", "r", "--priority", "80", "--", "x");
    assertEquals(0, urgent.code(), urgent.err());
    assertEquals(80, json.readTree(api.last().body()).path("priority").asInt());
    Result seconds = run("vm", "create", "r", "--restart-window", "600", "--", "x");
    assertEquals(ExitCodes.USAGE, seconds.code());
    assertTrue(seconds.err().contains("such as 30s, 5m or 1h"), seconds.err());
  }

  @Test
  void usageErrorsAndHelpReadAsEnglish() {
    Result env = run("vm", "create", "x", "-e", "FOO", "--", "true");
    assertEquals(ExitCodes.USAGE, env.code());
    assertEquals(
        "rota: Value for option '--env' (KEY=VALUE) should be in KEY=VALUE format but was FOO"
            + " (see rota vm create --help)\n",
        env.err());
    Result cpu = run("vm", "create", "x", "--cpu", "abc", "--", "true");
    assertTrue(cpu.err().contains("'abc' is not a whole number"), cpu.err());
    assertTrue(run("env").err().startsWith("rota: Unknown argument: 'env'"), run("env").err());
    assertTrue(api.requests.isEmpty(), "nothing was sent");

    String create = run("vm", "create", "--help").out();
    assertTrue(create.contains("--cpu=N") && create.contains("-e, --env=KEY=VALUE"), create);
    assertTrue(!create.contains("=<"), "every option's value is named: " + create);
    String apply = run("apply", "--help").out();
    String description =
        apply
            .substring(apply.indexOf("\nCreate"), apply.indexOf("--context=NAME    "))
            .replaceAll("\\s+", " ");
    assertTrue(
        description.contains("them: {\"items\": [...]}) as 'get -o yaml'"),
        "one sentence, not one cut at a comma: " + description);
  }

  @Test
  void completionPrintsABashScriptThatKnowsTheNounsAndVerbs() {
    Result r = run("completion");
    assertEquals(0, r.code(), r.err());
    assertTrue(r.out().contains("complete -F"), "a bash completion script");
    assertTrue(r.out().contains("describe"), "that knows the verbs");
  }

  @Test
  void versionIsAVerbAsWellAsAFlag() {
    api.on(
        "GET /v1/cluster",
        StandInApi.Reply.json(200, "{\"version\":\"0.3.0\",\"commit\":\"1a2b3c4\"}"));
    Result verb = run("version");
    assertEquals(0, verb.code(), verb.err());
    String flag = run("--version").out();
    assertTrue(
        flag.matches("rota \\d+\\.\\d+\\.\\d+ \\(commit [0-9a-f]{7,}\\)\\R"),
        "the CLI's release and commit: " + flag);
    assertEquals(flag + "server 0.3.0 (commit 1a2b3c4)" + System.lineSeparator(), verb.out());
  }

  @Test
  void versionSaysAServerThatDidNotAnswerRatherThanFailing() {
    api.on("GET /v1/cluster", StandInApi.Reply.json(503, "{\"title\":\"down\"}"));
    Result verb = run("version");
    assertEquals(0, verb.code(), verb.err());
    assertTrue(verb.out().startsWith(run("--version").out()), verb.out());
    assertTrue(verb.out().contains("server unknown: "), verb.out());
  }

  @Test
  void theFirstWordAfterDashesIsTheCommandsNotTheName() throws Exception {
    Result unnamed = run("vm", "create", "--", "sleep", "1");
    assertEquals(ExitCodes.USAGE, unnamed.code());
    assertTrue(unnamed.err().contains("a VM needs a NAME"), unnamed.err());
    assertTrue(api.requests.isEmpty(), "nothing was sent");

    api.on("POST /v1/vms", StandInApi.Reply.json(201, vm("named", "pending", null, 0, "waiting")));
    assertEquals(0, run("vm", "create", "named", "--", "sleep", "1").code());
    JsonNode sent = json.readTree(api.last().body());
    assertEquals("named", sent.get("name").asText());
    assertEquals(json.readTree("[\"sleep\",\"1\"]"), sent.get("command"));
  }

  @Test
  void aSpecFileIsAmendedByFlags() throws Exception {
    Path spec =
        Files.writeString(
            home.resolve("vm.yaml"),
            """
        name: from-file
        command: [sleep, "60"]
        resources: {cpu: 1, memory: 256}
        """);
    api.on(
        "POST /v1/vms", StandInApi.Reply.json(201, vm("from-file", "pending", null, 0, "waiting")));
    assertEquals(0, run("vm", "create", "-f", spec.toString(), "--cpu", "4").code());
    assertEquals(
        json.readTree(
            "{\"name\":\"from-file\",\"command\":[\"sleep\",\"60\"],\"resources\":{\"cpu\":4,\"memory\":256}}"),
        json.readTree(api.last().body()));
  }

  @Test
  void listFollowsEveryPageAndFiltersAndPrintsJsonOrYamlWhole() throws Exception {
    api.on(
        "GET /v1/vms?status=running",
        StandInApi.Reply.json(
            200, "{\"items\":[" + vm("a", "running", "w1", 0, null) + "],\"nextCursor\":\"c1\"}"));
    api.on(
        "GET /v1/vms?status=running&cursor=c1",
        StandInApi.Reply.json(
            200, "{\"items\":[" + vm("b", "running", "w2", 1, null) + "],\"nextCursor\":null}"));
    Result table = run("vm", "list", "--status", "running");
    assertEquals(0, table.code(), table.err());
    assertEquals(3, table.out().lines().count(), table.out());
    assertTrue(
        table.out().lines().skip(2).findFirst().orElseThrow().matches("b +running +w2 +1 .*"),
        table.out());

    Result asJson = run("vm", "list", "--status", "running", "-o", "json");
    JsonNode items = json.readTree(asJson.out()).get("items");
    assertEquals(
        List.of("a", "b"),
        List.of(items.get(0).get("name").asText(), items.get(1).get("name").asText()));

    Result asYaml = run("-o", "yaml", "vm", "list", "--status", "running");
    assertEquals(
        json.readTree(asJson.out()),
        new ObjectMapper(new YAMLFactory()).readTree(asYaml.out()),
        "the same, as YAML");
  }

  @ParameterizedTest(name = "{0} -> exit {1}")
  @CsvSource({"400, 2", "401, 5", "403, 5", "404, 3", "409, 4", "500, 1", "503, 1"})
  void everyRefusalIsOneLineFromTheProblemAndItsOwnExitCode(int status, int exit) {
    api.on(
        "POST /v1/vms/x/stop",
        StandInApi.Reply.problem(status, "command: is required\\nfor the process runtime"));
    Result r = run("vm", "stop", "x");
    assertEquals(exit, r.code());
    assertEquals("rota: " + status + ": command: is required for the process runtime\n", r.err());
    assertEquals("", r.out(), "nothing on stdout for a script to mistake for an answer");
  }

  @Test
  void aServerThatDoesNotAnswerIsNamedWithExit6() throws Exception {
    String url = api.url();
    api.close();
    env.put("ROTA_SERVER", url);
    Result r = run("vm", "list");
    assertEquals(ExitCodes.UNREACHABLE, r.code());
    assertEquals(1, r.err().lines().count(), r.err());
    assertTrue(r.err().contains("cannot reach the Rota server at " + url), r.err());
  }

  @Test
  void aBadCommandLineIsOneLineWithExit2AndNoRequest() {
    Result r = run("vm", "create", "x", "--cpu", "lots");
    assertEquals(ExitCodes.USAGE, r.code());
    assertEquals(1, r.err().lines().count(), r.err());
    assertTrue(r.err().contains("--cpu") && r.err().contains("rota vm create --help"), r.err());
    assertTrue(api.requests.isEmpty());
    assertEquals(ExitCodes.USAGE, run("vm", "fly").code());
    Result noVerb = run("vm");
    assertEquals(ExitCodes.USAGE, noVerb.code());
    assertTrue(
        noVerb
            .err()
            .startsWith(
                "rota: a verb is needed: create, connect, console, delete, describe, events, exec, extend,"),
        noVerb.err());
    Result help = run("worker", "pause", "--help");
    assertEquals(ExitCodes.OK, help.code());
    assertTrue(help.out().startsWith("Usage: rota worker pause"), help.out());
  }

  @Test
  void waitShowsEachStepOnItsOwnLineOffATerminalAndEndsWhenRunning() {
    api.on(
        "POST /v1/vms",
        StandInApi.Reply.json(201, vm("w", "pending", null, 0, "waiting for the scheduler")));
    api.on(
        "GET /v1/vms/w",
        StandInApi.Reply.json(200, vm("w", "pending", null, 0, "waiting for the scheduler")),
        StandInApi.Reply.json(200, vm("w", "scheduled", "mini-1", 0, null)),
        StandInApi.Reply.json(200, vm("w", "scheduled", "mini-1", 0, null)),
        StandInApi.Reply.json(200, vm("w", "running", "mini-1", 0, null)));
    Result r = run("vm", "create", "w", "--wait", "--", "sleep", "60");
    assertEquals(0, r.code(), r.err());
    assertEquals(
        List.of(
            "vm w: pending: waiting for the scheduler",
            "vm w: scheduled on mini-1",
            "vm w: running on mini-1"),
        r.err().lines().toList());
    assertTrue(r.out().contains("running"), r.out());
  }

  @Test
  void createWaitEndsWhenAProgramThatEndsAtOnceHasRunByItsExitCode() {
    api.on("POST /v1/vms", StandInApi.Reply.json(201, vm("t", "pending", null, 0, "waiting")));
    api.on(
        "GET /v1/vms/t",
        StandInApi.Reply.json(200, vm("t", "pending", null, 0, "waiting")),
        StandInApi.Reply.json(
            200,
            vm("t", "stopped", "mini-1", 0, "exited with code 0")
                .replace("}", ",\"exitCode\":0}")));
    Result done = run("vm", "create", "t", "--wait", "--", "true");
    assertEquals(0, done.code(), done.err());
    assertEquals(
        "vm t: stopped on mini-1: exited with code 0",
        done.err().lines().reduce((a, b) -> b).orElse(""));

    api.on("POST /v1/vms", StandInApi.Reply.json(201, vm("f", "pending", null, 0, "waiting")));
    api.on(
        "GET /v1/vms/f",
        StandInApi.Reply.json(
            200,
            vm("f", "stopped", "mini-1", 0, "exited with code 2")
                .replace("}", ",\"exitCode\":2}")));
    assertEquals(ExitCodes.WAIT_FAILED, run("vm", "create", "f", "--wait", "--", "false").code());
  }

  @Test
  void waitEndsWithExit8WhenTheVmFailsAndExit7WhenTimeRunsOut() {
    api.on(
        "POST /v1/vms/f/start", StandInApi.Reply.json(202, vm("f", "pending", null, 1, "waiting")));
    api.on(
        "GET /v1/vms/f",
        StandInApi.Reply.json(200, vm("f", "pending", null, 1, "waiting")),
        StandInApi.Reply.json(200, vm("f", "failed", "w1", 1, "exited with code 3")));
    Result failed = run("vm", "start", "f", "--wait");
    assertEquals(ExitCodes.WAIT_FAILED, failed.code());
    assertTrue(
        failed.err().endsWith("rota: vm f failed: failed on w1: exited with code 3\n"),
        failed.err());

    api.on(
        "POST /v1/vms/s/start", StandInApi.Reply.json(202, vm("s", "pending", null, 0, "no room")));
    api.on("GET /v1/vms/s", StandInApi.Reply.json(200, vm("s", "pending", null, 0, "no room")));
    Instant before = now;
    Result late = run("vm", "start", "s", "--wait", "--timeout", "3s");
    assertEquals(ExitCodes.TIMED_OUT, late.code());
    assertTrue(
        late.err().contains("rota: vm s: not done after 3s (still pending: no room)"), late.err());
    assertEquals(
        Duration.ofSeconds(3),
        Duration.between(before, now),
        "polled until the timeout, not beyond");
  }

  @Test
  void waitEndsAtOnceWhenTheVmFitsNoWorkerOfTheCluster() {
    String big =
        vm("big", "pending", null, 0, "fits no worker of the cluster: needs cpu 64")
            .replace("\"set\":null", "\"set\":null,\"unplaceable\":true");
    api.on("POST /v1/vms", StandInApi.Reply.json(201, big));
    api.on("GET /v1/vms/big", StandInApi.Reply.json(200, big));
    Instant before = now;
    Result r = run("vm", "create", "big", "--cpu", "64", "--wait", "--", "sleep", "1");
    assertEquals(ExitCodes.WAIT_FAILED, r.code());
    assertTrue(
        r.err()
            .endsWith(
                "rota: vm big cannot be placed: pending: fits no worker of the cluster: needs cpu 64\n"),
        r.err());
    assertEquals(before, now, "no waiting at all");
  }

  @Test
  void aRestartWaitsForTheNextGenerationNotTheOneAlreadyRunning() {
    api.on("POST /v1/vms/r/restart", StandInApi.Reply.json(202, vm("r", "running", "w1", 2, null)));
    api.on(
        "GET /v1/vms/r",
        StandInApi.Reply.json(200, vm("r", "running", "w1", 2, null)),
        StandInApi.Reply.json(200, vm("r", "running", "w1", 2, null)),
        StandInApi.Reply.json(200, vm("r", "pending", null, 3, "waiting")),
        StandInApi.Reply.json(200, vm("r", "running", "w2", 3, null)));
    Result r = run("vm", "restart", "r", "--wait");
    assertEquals(0, r.code(), r.err());
    assertTrue(r.err().lines().toList().contains("vm r: running on w2"), r.err());
  }

  @Test
  void contextsLiveInTheConfigFileAndTheEnvironmentAndFlagsWin() throws Exception {
    env.remove("ROTA_SERVER");
    try (StandInApi other = new StandInApi()) {
      other.on("GET /v1/workers", StandInApi.Reply.json(200, "{\"items\":[],\"nextCursor\":null}"));
      api.on("GET /v1/workers", StandInApi.Reply.json(200, "{\"items\":[],\"nextCursor\":null}"));
      assertEquals(
          0, run("context", "set", "one", "--server", api.url(), "--token", "t-one").code());
      assertEquals(0, run("context", "set", "two", "--server", other.url() + "/").code());
      Path config = Path.of(env.get("ROTA_CONFIG"));
      assertEquals(
          "rw-------",
          PosixFilePermissions.toString(Files.getPosixFilePermissions(config)),
          "it holds tokens");

      assertEquals(0, run("worker", "list").code());
      assertEquals(
          "Bearer t-one", api.last().authorization(), "the first context made is the one in use");
      assertEquals(0, run("context", "use", "two").code());
      assertEquals(0, run("worker", "list").code());
      assertEquals(1, other.requests.size());
      assertEquals(null, other.last().authorization());

      Result list = run("context", "list");
      assertTrue(list.out().contains("*         two") && !list.out().contains("t-one"), list.out());

      env.put("ROTA_SERVER", api.url());
      env.put("ROTA_TOKEN", "t-env");
      assertEquals(0, run("worker", "list").code());
      assertEquals(
          "Bearer t-env",
          api.last().authorization(),
          "ROTA_SERVER and ROTA_TOKEN over the context");
      assertEquals(0, run("worker", "list", "--server", other.url(), "--token", "t-flag").code());
      assertEquals("Bearer t-flag", other.last().authorization(), "flags over both");

      assertEquals(ExitCodes.USAGE, run("worker", "list", "--context", "three").code());
      assertEquals(ExitCodes.NOT_FOUND, run("context", "use", "three").code());
    }
  }

  @Test
  void aGuestGetsItsSshKeysAndStartupScriptFromFilesOrTheContextsKey() throws Exception {
    api.on("POST /v1/vms", StandInApi.Reply.json(201, vm("g", "pending", null, 0, "waiting")));
    Path key =
        Files.writeString(home.resolve("id_ed25519"), "-----BEGIN OPENSSH PRIVATE KEY-----\n");
    Files.writeString(home.resolve("id_ed25519.pub"), "ssh-ed25519 AAAAC3Nz me@laptop\n");
    Path script = Files.writeString(home.resolve("boot.sh"), "#!/bin/sh\necho up\n");
    assertEquals(
        0,
        run(
                "vm",
                "create",
                "g",
                "--runtime",
                "qemu",
                "--image",
                "file:///d.qcow2",
                "--ssh-key",
                key.toString(),
                "--startup-script",
                script.toString())
            .code());
    assertEquals(
        json.readTree(
            "{\"sshKeys\":[\"ssh-ed25519 AAAAC3Nz me@laptop\"],\"startupScript\":\"#!/bin/sh\\necho up\\n\"}"),
        json.readTree(api.last().body()).get("guest"),
        "the private key's .pub, and the script");

    Path other = Files.writeString(home.resolve("team.pub"), "ssh-rsa AAAAB3 team\n");
    env.remove("ROTA_SERVER");
    assertEquals(
        0,
        run("context", "set", "dev", "--server", api.url(), "--ssh-key", other.toString()).code());
    assertEquals(
        0, run("vm", "create", "h", "--runtime", "qemu", "--image", "file:///d.qcow2").code());
    assertEquals(
        "ssh-rsa AAAAB3 team",
        json.readTree(api.last().body()).path("guest").path("sshKeys").get(0).asText(),
        "the context's key when none is named");
    assertEquals(0, run("vm", "create", "p", "--", "sleep", "1").code());
    assertTrue(json.readTree(api.last().body()).path("guest").isMissingNode(), "not for a process");
    Result unreadable =
        run(
            "vm",
            "create",
            "x",
            "--runtime",
            "qemu",
            "--image",
            "file:///d",
            "--ssh-key",
            "/nowhere");
    assertEquals(ExitCodes.USAGE, unreadable.code());
    assertTrue(
        unreadable.err().startsWith("rota: cannot read --ssh-key /nowhere"), unreadable.err());
  }

  /** A context's namespace is where creates and lists go unless they name another, or every one. */
  @Test
  void aContextsNamespaceIsWhereCreatesAndListsGoUnlessTheyNameAnother() throws Exception {
    env.remove("ROTA_SERVER");
    assertEquals(0, run("context", "set", "team", "--server", api.url(), "-n", "team-a").code());
    assertTrue(run("context", "list").out().contains("team-a"), "the list shows it");
    String page = "{\"items\":[],\"nextCursor\":null}";
    for (String kind : List.of("vms", "vm-sets", "pools", "secrets", "templates")) {
      api.on("GET /v1/" + kind + "?namespace=team-a", StandInApi.Reply.json(200, page));
      api.on("GET /v1/" + kind + "?namespace=team-b", StandInApi.Reply.json(200, page));
      api.on("GET /v1/" + kind, StandInApi.Reply.json(200, page));
    }
    for (String noun : List.of("vm", "vm-set", "pool", "secret", "template")) {
      String kind =
          Map.of("vm", "vms", "vm-set", "vm-sets", "pool", "pools").getOrDefault(noun, noun + "s");
      assertEquals(0, run(noun, "list").code(), noun);
      assertEquals(
          "/v1/" + kind + "?namespace=team-a", api.last().target(), noun + ": the context's");
      assertEquals(0, run(noun, "list", "-n", "team-b").code(), noun);
      assertEquals("/v1/" + kind + "?namespace=team-b", api.last().target(), noun + ": -n wins");
      assertEquals(0, run(noun, "list", "-A").code(), noun);
      assertEquals("/v1/" + kind, api.last().target(), noun + ": -A lists every one");
    }
    assertEquals(ExitCodes.USAGE, run("vm", "list", "-A", "-n", "team-b").code());

    api.on("POST /v1/vms", StandInApi.Reply.json(201, "{\"name\":\"r\",\"status\":\"pending\"}"));
    assertEquals(0, run("vm", "create", "r", "--", "true").code());
    assertEquals("team-a", json.readTree(api.last().body()).path("namespace").asText());
    assertEquals(0, run("vm", "create", "r", "-n", "team-b", "--", "true").code());
    assertEquals("team-b", json.readTree(api.last().body()).path("namespace").asText());
    assertEquals(0, run("vm", "create", "r", "--from-template", "t").code());
    assertTrue(
        json.readTree(api.last().body()).path("namespace").isMissingNode(),
        "a VM of a template lives in the template's namespace");
    api.on("POST /v1/secrets", StandInApi.Reply.json(201, "{\"name\":\"s\"}"));
    Path value = Files.writeString(home.resolve("secret.txt"), "v");
    assertEquals(0, run("secret", "create", "s", "--from-file", value.toString()).code());
    assertEquals("team-a", json.readTree(api.last().body()).path("namespace").asText());
  }

  @Test
  void workersShowWhatTheyHoldAgainstWhatTheyHaveAndPauseByPatch() throws Exception {
    String worker =
        "{\"name\":\"mini-1\",\"health\":\"ready\",\"schedulingPaused\":true,\"vmCount\":2,"
            + "\"resources\":{\"cpu\":8,\"memory\":16384},\"allocated\":{\"cpu\":3,\"memory\":1024},\"healthMessage\":\"answering\"}";
    api.on("PATCH /v1/workers/mini-1", StandInApi.Reply.json(200, worker));
    Result r = run("worker", "pause", "mini-1");
    assertEquals(0, r.code(), r.err());
    assertEquals(json.readTree("{\"schedulingPaused\":true}"), json.readTree(api.last().body()));
    assertTrue(
        r.out()
            .lines()
            .toList()
            .get(1)
            .matches("mini-1 +ready +true +- +2 +3/8 +1024/16384 +answering"),
        r.out());
  }

  @Test
  void aWorkersNoticesFollowItsHealthMessage() {
    String worker =
        "{\"name\":\"mini-2\",\"health\":\"ready\",\"schedulingPaused\":false,\"vmCount\":0,"
            + "\"resources\":{\"cpu\":2},\"allocated\":{},\"healthMessage\":null,"
            + "\"notices\":[\"process tasks run without CPU and memory limits\"]}";
    api.on("GET /v1/workers/mini-2", StandInApi.Reply.json(200, worker));
    Result r = run("worker", "get", "mini-2");
    assertEquals(0, r.code(), r.err());
    assertTrue(
        r.out()
            .lines()
            .toList()
            .get(1)
            .endsWith(" process tasks run without CPU and memory limits"),
        r.out());
  }

  @Test
  void listWatchShowsTheListThenARowPerChangeResumesAndListsAgainWhenTold() {
    String stream =
        "{\"type\":\"snapshot\",\"resourceVersion\":\"7\",\"object\":"
            + vm("a", "running", "w1", 0, null)
            + "}\n"
            + "{\"type\":\"synced\",\"resourceVersion\":\"7\"}\n"
            + "{\"type\":\"upsert\",\"resourceVersion\":\"8\",\"object\":"
            + vm("b", "pending", null, 0, "waiting")
            + "}\n"
            + "{\"type\":\"delete\",\"resourceVersion\":\"9\",\"object\":{\"name\":\"a\"}}\n";
    api.on(
        "GET /v1/vms?watch=true",
        StandInApi.Reply.json(200, stream),
        StandInApi.Reply.problem(404, "gone for the test"));
    api.on(
        "GET /v1/vms?watch=true&resourceVersion=9",
        StandInApi.Reply.problem(
            410, "resourceVersion: 9 is older than the changes kept (60 min)"));
    Result r = run("vm", "list", "--watch");
    assertEquals(ExitCodes.NOT_FOUND, r.code(), "the stand-in ends it with a 404: " + r.err());
    List<String> out = r.out().lines().toList();
    assertTrue(out.get(0).matches("TIME +EVENT +NAME +STATUS .*"), r.out());
    assertTrue(out.get(1).matches("\\d\\d:\\d\\d:\\d\\d +SNAPSHOT +a +running +w1 .*"), r.out());
    assertTrue(
        out.get(2).matches("\\d\\d:\\d\\d:\\d\\d +UPSERT +b +pending +- .*waiting"), r.out());
    assertTrue(out.get(3).matches("\\d\\d:\\d\\d:\\d\\d +DELETE +a.*"), r.out());
    int name = out.get(0).indexOf("NAME");
    int status = out.get(0).indexOf("STATUS");
    for (String row : out.subList(1, 4)) {
      assertTrue(
          row.charAt(name - 1) == ' ' && row.charAt(name) != ' ', "NAME lines up: " + r.out());
    }
    assertEquals(status, out.get(2).indexOf("pending"), "and STATUS: " + r.out());
    assertEquals(
        List.of("/v1/vms?watch=true", "/v1/vms?watch=true&resourceVersion=9", "/v1/vms?watch=true"),
        api.requests.stream().map(StandInApi.Request::target).toList(),
        "resumed from the last line, then listed again");
    assertTrue(r.err().contains("listing again"), r.err());
    assertEquals(ExitCodes.USAGE, run("vm", "list", "--watch", "--status", "running").code());
  }

  private static String draining(String state, String progress) {
    return "{\"name\":\"mini-1\",\"health\":\"ready\",\"schedulingPaused\":true,\"vmCount\":1,"
        + "\"drain\":{\"deadline\":\"2026-11-23T07:30:00Z\",\"startedAt\":\"2026-11-23T07:00:00Z\",\"state\":\""
        + state
        + "\",\"progress\":\""
        + progress
        + "\"}}";
  }

  @Test
  void drainSendsTheDeadlineADurationMakesFromNowAndWaitsUntilDrained() throws Exception {
    api.on(
        "POST /v1/workers/mini-1/drain",
        StandInApi.Reply.json(200, draining("draining", "1 VM left")));
    api.on(
        "GET /v1/workers/mini-1",
        StandInApi.Reply.json(
            200, draining("draining", "draining until 2026-11-23T07:30:00Z: 1 VM left; 1 moving")),
        StandInApi.Reply.json(200, draining("drained", "drained: no VMs left")));
    Result r = run("worker", "drain", "mini-1", "--deadline", "30m", "--wait");
    assertEquals(0, r.code(), r.err());
    assertEquals(
        json.readTree("{\"deadline\":\"2026-11-23T07:30:00Z\"}"),
        json.readTree(api.requests.get(0).body()));
    assertTrue(r.err().contains("1 VM left; 1 moving"), "its progress while it waits: " + r.err());
    assertTrue(r.out().lines().toList().get(1).matches("mini-1 +ready +true +drained .*"), r.out());

    assertEquals(
        0, run("worker", "drain", "mini-1", "--deadline", "2026-11-24T00:00:00+01:00").code());
    assertEquals(
        json.readTree("{\"deadline\":\"2026-11-24T00:00:00+01:00\"}"),
        json.readTree(api.last().body()),
        "a time goes as written, for the server to judge");
  }

  @Test
  void aSetIsCreatedWithItsTemplateAndSpreadAndScaledByPatch() throws Exception {
    String set =
        "{\"name\":\"web\",\"spread\":{\"label\":\"zone\"},\"status\":{\"desired\":3,\"running\":1,\"pending\":2,\"message\":\"2 pending\"}}";
    api.on("POST /v1/vm-sets", StandInApi.Reply.json(201, set));
    Result r =
        run(
            "vm-set",
            "create",
            "web",
            "--replicas",
            "3",
            "--spread",
            "label:zone",
            "--cpu",
            "1",
            "--",
            "sleep",
            "60");
    assertEquals(0, r.code(), r.err());
    assertEquals(
        json.readTree(
            """
        {"name":"web","replicas":3,"template":{"resources":{"cpu":1},"command":["sleep","60"]},"spread":{"label":"zone"}}"""),
        json.readTree(api.last().body()));
    assertTrue(
        r.out().lines().toList().get(1).matches("web +3 +1 +2 +label:zone +2 pending"), r.out());

    String shared =
        "{\"name\":\"web\",\"spread\":{\"label\":\"zone\",\"targets\":{\"a\":70,\"b\":30}},\"status\":{\"desired\":3,\"running\":3,\"pending\":0,\"message\":null}}";
    api.on("POST /v1/vm-sets", StandInApi.Reply.json(201, shared));
    Result targeted =
        run("vm-set", "create", "web", "--replicas", "3", "--spread", "label:zone:a=70,b=30");
    assertEquals(0, targeted.code(), targeted.err());
    assertEquals(
        json.readTree("{\"label\":\"zone\",\"targets\":{\"a\":70,\"b\":30}}"),
        json.readTree(api.last().body()).path("spread"));
    assertTrue(
        targeted.out().lines().toList().get(1).matches("web +3 +3 +0 +label:zone:a=70,b=30 .*"),
        targeted.out());
    Result unshared =
        run("vm-set", "create", "web", "--replicas", "3", "--spread", "label:zone:a=most");
    assertEquals(ExitCodes.USAGE, unshared.code());
    assertTrue(unshared.err().contains("label:KEY:VALUE=PERCENT"), unshared.err());

    api.on("PATCH /v1/vm-sets/web", StandInApi.Reply.json(200, set));
    assertEquals(0, run("vm-set", "scale", "web", "5").code());
    assertEquals(json.readTree("{\"replicas\":5}"), json.readTree(api.last().body()));
  }

  @Test
  void aNamespacesQuotaIsSetAndShownBesideWhatItsVmsHold() throws Exception {
    String ci =
        "{\"name\":\"ci\",\"description\":\"runners\",\"quota\":{\"cpu\":16,\"memory\":32768},"
            + "\"used\":{\"cpu\":6,\"memory\":2048,\"vms\":3,\"disk\":0}}";
    api.on("PUT /v1/namespaces/ci", StandInApi.Reply.json(200, ci));
    Result set =
        run(
            "namespace",
            "set",
            "ci",
            "--description",
            "runners",
            "--cpu",
            "16",
            "--memory",
            "32Gi");
    assertEquals(0, set.code(), set.err());
    assertEquals(
        json.readTree("{\"description\":\"runners\",\"quota\":{\"cpu\":16,\"memory\":\"32Gi\"}}"),
        json.readTree(api.last().body()));
    api.on("GET /v1/namespaces/ci", StandInApi.Reply.json(200, ci));
    Result shown = run("namespace", "get", "ci");
    assertEquals(0, shown.code(), shown.err());
    assertTrue(
        shown.out().lines().toList().get(1).matches("ci +6/16 +2048Mi/32768Mi +3 +0Gi +runners"),
        shown.out());

    api.on("POST /v1/vms", StandInApi.Reply.json(201, vm("r", "pending", null, 0, "waiting")));
    assertEquals(0, run("vm", "create", "r", "-n", "ci", "--", "x").code());
    assertEquals("ci", json.readTree(api.last().body()).path("namespace").asText());
    api.on("POST /v1/vm-sets", StandInApi.Reply.json(201, "{\"name\":\"web\",\"replicas\":2}"));
    assertEquals(
        0, run("vm-set", "create", "web", "--replicas", "2", "-n", "ci", "--", "x").code());
    JsonNode body = json.readTree(api.last().body());
    assertEquals("ci", body.path("namespace").asText(), "the set's namespace");
    assertTrue(body.path("template").path("namespace").isMissingNode(), body.toString());
    api.on(
        "GET /v1/vms?namespace=ci",
        StandInApi.Reply.json(200, "{\"items\":[],\"nextCursor\":null}"));
    assertEquals(0, run("vm", "list", "-n", "ci").code());
    assertEquals("/v1/vms?namespace=ci", api.last().target());
    api.on(
        "GET /v1/pools?namespace=ci",
        StandInApi.Reply.json(200, "{\"items\":[],\"nextCursor\":null}"));
    assertEquals(0, run("pool", "list", "-n", "ci").code());
    assertEquals("/v1/pools?namespace=ci", api.last().target());
  }

  @Test
  void aSetsRolloutSettingsAreSentAndItsVersionsListedTheNewestFirst() throws Exception {
    String set =
        "{\"name\":\"web\",\"spread\":\"none\",\"status\":{\"desired\":2,\"running\":2,\"pending\":0,\"message\":null}}";
    api.on("POST /v1/vm-sets", StandInApi.Reply.json(201, set));
    Result created =
        run(
            "vm-set",
            "create",
            "web",
            "--replicas",
            "2",
            "--max-unavailable",
            "0",
            "--max-surge",
            "1",
            "--min-healthy-time",
            "30s",
            "--progress-deadline",
            "5m",
            "--auto-revert",
            "--",
            "sleep",
            "60");
    assertEquals(0, created.code(), created.err());
    assertEquals(
        json.readTree(
            "{\"maxSurge\":1,\"minHealthyTime\":\"30s\",\"progressDeadline\":\"5m\",\"autoRevert\":true}"),
        json.readTree(api.last().body()).get("update"));
    assertEquals(0, json.readTree(api.last().body()).get("maxUnavailable").asInt());

    api.on(
        "GET /v1/vm-sets/web/versions",
        StandInApi.Reply.json(
            200,
            """
            {"items":[
              {"version":2,"current":true,"template":{"command":["sleep","7200"]},
               "createdAt":"2026-12-01T10:00:00Z","createdBy":"ci"},
              {"version":1,"current":false,"template":{"command":["sleep","60"]},
               "createdAt":"2026-12-01T09:00:00Z","createdBy":"ci"}]}"""));
    Result history = run("vm-set", "history", "web");
    assertEquals(0, history.code(), history.err());
    List<String> lines = history.out().lines().toList();
    assertEquals(3, lines.size(), history.out());
    assertTrue(lines.get(0).matches("VERSION +CURRENT +CREATED +BY +COMMAND"), lines.get(0));
    assertTrue(lines.get(1).matches("2 +\\* +2026-12-01T10:00:00Z +ci +sleep 7200"), lines.get(1));
    assertTrue(lines.get(2).matches("1 +- +2026-12-01T09:00:00Z +ci +sleep 60"), lines.get(2));

    String rolling =
        "{\"name\":\"web\",\"version\":3,\"status\":{\"desired\":2,\"updated\":1,\"stableVersion\":2,\"rollout\":\"paused\",\"message\":\"paused\"}}";
    api.on("POST /v1/vm-sets/web/rollout/pause", StandInApi.Reply.json(200, rolling));
    Result paused = run("vm-set", "rollout", "pause", "web");
    assertEquals(0, paused.code(), paused.err());
    assertTrue(
        paused.out().lines().toList().get(1).matches("web +3 +paused +1/2 +2 +paused"),
        paused.out());
    Result wrong = run("vm-set", "rollout", "undo", "web");
    assertEquals(2, wrong.code(), "a usage error");
    assertTrue(wrong.err().contains("pause, resume or status"), wrong.err());
    api.on("POST /v1/vm-sets/web/promote", StandInApi.Reply.json(200, rolling));
    assertEquals(0, run("vm-set", "promote", "web").code());
    assertEquals("POST", api.last().method());

    api.on("POST /v1/vm-sets/web/revert", StandInApi.Reply.json(200, set));
    Result reverted = run("vm-set", "revert", "web", "1");
    assertEquals(0, reverted.code(), reverted.err());
    assertEquals(json.readTree("{\"version\":1}"), json.readTree(api.last().body()));
  }

  @Test
  void aSecretsValueGoesFromItsFileToTheServerAndNoCommandPrintsIt() throws Exception {
    String shown =
        "{\"name\":\"db\",\"createdAt\":\"2026-11-23T07:00:00Z\",\"updatedAt\":\"2026-11-23T07:00:00Z\"}";
    api.on("POST /v1/secrets", StandInApi.Reply.json(201, shown));
    api.on("PUT /v1/secrets/db", StandInApi.Reply.json(200, shown));
    api.on("GET /v1/secrets/db", StandInApi.Reply.json(200, shown));
    api.on("DELETE /v1/secrets/db", StandInApi.Reply.json(204, ""));
    Path value = Files.writeString(home.resolve("db-password"), "s3cret-value\n");

    Result created = run("secret", "create", "db", "--from-file", value.toString());
    assertEquals(0, created.code(), created.err());
    assertEquals(
        json.readTree("{\"name\":\"db\",\"value\":\"s3cret-value\\n\"}"),
        json.readTree(api.last().body()),
        "the file's bytes, as they are");
    Result set = run("secret", "set", "db", "--from-file", value.toString());
    assertEquals(0, set.code(), set.err());
    assertEquals("PUT", api.last().method());
    assertEquals(
        json.readTree("{\"value\":\"s3cret-value\\n\"}"), json.readTree(api.last().body()));
    Result got = run("secret", "get", "db");
    assertEquals(0, got.code(), got.err());
    assertTrue(got.out().contains("db"), got.out());
    for (Result r : List.of(created, set, got)) {
      assertFalse(r.out().contains("s3cret") || r.err().contains("s3cret"), "no value shown: " + r);
    }
    Result deleted = run("secret", "delete", "db");
    assertEquals("secret db deleted\n", deleted.out());
    assertEquals("DELETE", api.last().method());

    Result missing = run("secret", "create", "db", "--from-file", home.resolve("none").toString());
    assertEquals(2, missing.code(), "a file that cannot be read is the command line's fault");
    assertEquals(
        "rota: cannot read the secret's value from " + home.resolve("none") + ": no such file\n",
        missing.err());
    assertEquals("DELETE", api.last().method(), "nothing sent");
  }

  @Test
  void aVmsAccessTokenIsPrintedAloneForAScriptToTake() throws Exception {
    api.on(
        "POST /v1/vms/web-1/access-tokens",
        StandInApi.Reply.json(
            201, "{\"token\":\"rota_vm_abc\",\"expiresAt\":\"2026-11-23T07:15:00Z\"}"));
    Result made = run("vm", "token", "web-1", "--ttl", "1h");
    assertEquals("rota_vm_abc\n", made.out());
    assertEquals(json.readTree("{\"ttl\":\"1h\"}"), json.readTree(api.last().body()));
    Result asJson = run("vm", "token", "web-1", "-o", "json");
    assertEquals("rota_vm_abc", json.readTree(asJson.out()).get("token").asText());
    assertEquals(
        json.readTree("{}"), json.readTree(api.last().body()), "15m is the server's default");
  }

  @Test
  void anAccountsTokenIsShownOnceAndJsonStaysParseable() throws Exception {
    String account =
        "{\"name\":\"ci\",\"roles\":[\"compute:write\"],\"worker\":null,\"createdAt\":\"2026-11-23T07:00:00Z\",\"token\":\"rota_abc\"}";
    api.on("POST /v1/service-accounts", StandInApi.Reply.json(201, account));
    Result table = run("account", "create", "ci", "--role", "compute:write");
    assertTrue(table.out().endsWith("token (shown this once): rota_abc\n"), table.out());
    Result asJson = run("account", "create", "ci", "--role", "compute:write", "-o", "json");
    assertEquals("rota_abc", json.readTree(asJson.out()).get("token").asText());
    assertEquals(
        json.readTree("{\"name\":\"ci\",\"roles\":[\"compute:write\"]}"),
        json.readTree(api.last().body()));
  }

  @Test
  void anAccountsRolesInANamespaceAreSentByNamespace() throws Exception {
    api.on(
        "POST /v1/service-accounts",
        StandInApi.Reply.json(
            201,
            "{\"name\":\"team\",\"roles\":[],\"namespaceRoles\":{\"team-a\":[\"compute:read\","
                + "\"compute:write\"]},\"createdAt\":\"2026-11-23T07:00:00Z\",\"token\":\"rota_t\"}"));
    Result made =
        run(
            "account",
            "create",
            "team",
            "--namespace-role",
            "team-a=compute:read",
            "--namespace-role",
            "team-a=compute:write");
    assertEquals(0, made.code(), made.err());
    assertTrue(made.out().contains("team-a=compute:read compute:write"), made.out());
    assertEquals(
        json.readTree(
            "{\"name\":\"team\",\"roles\":[],"
                + "\"namespaceRoles\":{\"team-a\":[\"compute:read\",\"compute:write\"]}}"),
        json.readTree(api.last().body()));
    Result bad = run("account", "create", "team", "--namespace-role", "compute:read");
    assertEquals(ExitCodes.USAGE, bad.code());
    assertTrue(bad.err().contains("NAMESPACE=ROLE"), bad.err());
  }

  @Test
  void anImagePrefetchIsAskedWithItsSelectorAndWaitedForWorkerByWorker() throws Exception {
    String pulling =
        "{\"name\":\"prefetch-1\",\"image\":\"oci://r.example/vm:1\",\"workerSelector\":{\"zone\":\"a\"},"
            + "\"createdAt\":\"2026-11-26T07:00:00Z\",\"held\":1,\"workers\":["
            + "{\"worker\":\"w1\",\"state\":\"held\"},"
            + "{\"worker\":\"w2\",\"state\":\"pulling\",\"message\":\"pulling 40% of 2048 MiB\"}]}";
    String held =
        pulling
            .replace("\"held\":1", "\"held\":2")
            .replace(
                "{\"worker\":\"w2\",\"state\":\"pulling\",\"message\":\"pulling 40% of 2048 MiB\"}",
                "{\"worker\":\"w2\",\"state\":\"held\"}");
    api.on("POST /v1/images/prefetch", StandInApi.Reply.json(201, pulling));
    api.on(
        "GET /v1/images/prefetch/prefetch-1",
        StandInApi.Reply.json(200, pulling),
        StandInApi.Reply.json(200, held));
    Result r = run("image", "prefetch", "oci://r.example/vm:1", "-l", "zone=a", "--wait");
    assertEquals(0, r.code(), r.err());
    assertEquals(
        json.readTree("{\"image\":\"oci://r.example/vm:1\",\"workerSelector\":{\"zone\":\"a\"}}"),
        json.readTree(
            api.requests.stream()
                .filter(q -> q.method().equals("POST"))
                .findFirst()
                .orElseThrow()
                .body()));
    assertTrue(r.out().contains("prefetch-1") && r.out().contains("2/2"), r.out());
    assertTrue(r.out().lines().anyMatch(l -> l.matches("w2 +held +-")), r.out());

    String failed =
        pulling.replace(
            "\"state\":\"pulling\",\"message\":\"pulling 40% of 2048 MiB\"",
            "\"state\":\"failed\",\"message\":\"image oci://r.example/vm:1 is not in its registry\"");
    api.on("GET /v1/images/prefetch/prefetch-1", StandInApi.Reply.json(200, failed));
    Result broken = run("image", "prefetch", "oci://r.example/vm:1", "-l", "zone=a", "--wait");
    assertEquals(ExitCodes.WAIT_FAILED, broken.code());
    assertTrue(
        broken
            .err()
            .endsWith(
                "rota: prefetch prefetch-1 failed on w2: image oci://r.example/vm:1 is not in its"
                    + " registry\n"),
        broken.err());
  }

  @Test
  void imagesAreFoundByTheirAddressAndListedWorkerByWorker() throws Exception {
    String one =
        "{\"name\":\"prefetch-1\",\"image\":\"oci://r.example/vm:1\",\"workerSelector\":{},"
            + "\"createdAt\":\"2026-11-26T07:00:00Z\",\"held\":1,\"workers\":["
            + "{\"worker\":\"w1\",\"state\":\"held\"},"
            + "{\"worker\":\"w2\",\"state\":\"pulling\",\"message\":\"pulling 40% of 2048 MiB\"},"
            + "{\"worker\":\"w3\",\"state\":\"failed\",\"message\":\"disk full\"}]}";
    String other =
        "{\"name\":\"prefetch-2\",\"image\":\"https://x.example/d.qcow2\",\"workerSelector\":{},"
            + "\"createdAt\":\"2026-11-26T07:00:00Z\",\"held\":0,\"workers\":[]}";
    api.on(
        "GET /v1/images/prefetch",
        StandInApi.Reply.json(200, "{\"items\":[" + one + "," + other + "]}"));
    Result list = run("image", "list");
    assertEquals(0, list.code(), list.err());
    assertTrue(
        list.out().contains("w1 held; w2 pulling 40% of 2048 MiB; w3 failed: disk full"),
        list.out());

    api.on("GET /v1/images/prefetch/prefetch-1", StandInApi.Reply.json(200, one));
    Result byAddress = run("image", "describe", "oci://r.example/vm:1");
    assertEquals(0, byAddress.code(), byAddress.err());
    assertEquals(run("image", "describe", "prefetch-1").out(), byAddress.out());

    Result none = run("image", "describe", "oci://r.example/vm:2");
    assertEquals(ExitCodes.NOT_FOUND, none.code());
    assertTrue(none.err().contains("no prefetch of image oci://r.example/vm:2"), none.err());

    api.on("DELETE /v1/images/prefetch/prefetch-1", StandInApi.Reply.json(204, ""));
    Result deleted = run("image", "delete", "oci://r.example/vm:1");
    assertEquals(0, deleted.code(), deleted.err());
    assertEquals("image prefetch prefetch-1 deleted\n", deleted.out());
    assertEquals("DELETE", api.last().method());
    assertTrue(api.last().target().endsWith("/prefetch-1"), api.last().target());
  }

  @Test
  void deleteWaitsUntilTheVmIsGone() {
    api.on("DELETE /v1/vms/d", StandInApi.Reply.json(202, ""));
    api.on(
        "GET /v1/vms/d",
        StandInApi.Reply.json(200, vm("d", "stopping", "w1", 0, null)),
        StandInApi.Reply.problem(404, "vm 'd' not found"));
    Result r = run("vm", "delete", "d", "--wait");
    assertEquals(0, r.code(), r.err());
    assertEquals("vm d deleted\n", r.out());
  }

  @Test
  void logsPrintWhatIsKeptAndAFollowThatBreaksGoesOnFromWhereItGotTo() {
    api.on(
        "GET /v1/vms/l/logs",
        new StandInApi.Reply(
            200,
            "text/plain",
            "one\ntwo\n",
            Map.of("Rota-Log-Next", "8", "Rota-Log-Live", "true")));
    Result r = run("vm", "logs", "l");
    assertEquals("one\ntwo\n", r.out());

    api.on(
        "GET /v1/vms/l/logs?previous=true&tailLines=5&since=2026-11-26T10%3A00%3A00Z&stream=stderr",
        new StandInApi.Reply(200, "text/plain", "gone\n", Map.of("Rota-Log-Live", "false")));
    r =
        run(
            "vm",
            "logs",
            "l",
            "--previous",
            "--tail",
            "5",
            "--since",
            "2026-11-26T10:00:00Z",
            "--stderr");
    assertEquals("gone\n", r.out(), r.err());

    // One held stream; when it breaks, the CLI follows again from the offset it had reached,
    // without --tail, and prints each byte once (an é split across the break among them).
    api.on(
        "GET /v1/vms/l/logs?tailLines=5&follow=true",
        new StandInApi.Reply(
            200,
            "text/plain",
            "one\ntwo\n",
            Map.of("Rota-Log-From", "0", "Rota-Log-Task", "l.0", StandInApi.BREAKS, "")));
    api.on(
        "GET /v1/vms/l/logs?follow=true&from=8",
        new StandInApi.Reply(
            200,
            "text/plain",
            "caf\u00e9\n",
            Map.of("Rota-Log-From", "8", "Rota-Log-Task", "l.0")));
    r = run("vm", "logs", "l", "-f", "--tail", "5");
    assertEquals(0, r.code(), r.err());
    assertEquals("one\ntwo\ncaf\u00e9\n", r.out(), "each byte once, until the task ended");

    assertEquals(2, run("vm", "logs", "l", "--since", "yesterday").code());
  }

  @Test
  void followingTheLogOfAVmThatHasNotStartedWaitsForItsStart() {
    api.on(
        "GET /v1/vms/late",
        StandInApi.Reply.json(200, vm("late", "pending", null, 0, "no worker has 4 cpu free")),
        StandInApi.Reply.json(200, vm("late", "pending", null, 0, "no worker has 4 cpu free")),
        StandInApi.Reply.json(200, vm("late", "running", "w1", 0, "running")));
    api.on(
        "GET /v1/vms/late/logs?follow=true",
        new StandInApi.Reply(
            200, "text/plain", "hello\n", Map.of("Rota-Log-From", "0", "Rota-Log-Task", "late.0")));
    Result r = run("vm", "logs", "late", "-f");
    assertEquals(0, r.code(), r.err());
    assertEquals("hello\n", r.out());
    assertTrue(r.err().contains("vm late: pending: no worker has 4 cpu free"), r.err());
    assertTrue(
        api.requests.stream().filter(q -> q.target().contains("/logs")).count() == 1,
        "the log asked for once it ran: " + api.requests);
  }

  @Test
  void logsOnATerminalLeaveOutWhatTheTerminalWouldActOnAndRawKeepsIt() {
    String console = "\u001bc\u001b[2J\u001b[6nROTA-GUEST-UP\r\n";
    api.on(
        "GET /v1/vms/q/logs",
        new StandInApi.Reply(200, "text/plain", console, Map.of("Rota-Log-Live", "true")));
    assertEquals("ROTA-GUEST-UP\n", runOnTerminal("vm", "logs", "q").out());
    assertEquals(console, runOnTerminal("vm", "logs", "q", "--raw").out());
    assertEquals(console, run("vm", "logs", "q").out(), "piped, the bytes as they are");
  }
}
