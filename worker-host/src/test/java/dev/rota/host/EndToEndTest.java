package dev.rota.host;

import static dev.rota.testing.Eventually.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rota.agent.Agent;
import dev.rota.agentapi.AgentRejectedException;
import dev.rota.agentapi.LogQuery;
import dev.rota.agentapi.TaskSpec;
import dev.rota.scheduler.agents.AgentClient;
import dev.rota.store.AgentAddress;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Dev mode with its two real agents running real processes on loopback. */
class EndToEndTest extends SharedDevStack {

  @Test
  void aSleepVmRunsAsARealProcessAndDeletingItKillsTheProcess() {
    assertEquals(
        201,
        stack
            .api("POST", "/v1/vms", "{\"name\":\"sleeper\",\"command\":[\"sleep\",\"300\"]}")
            .status());
    eventually("running", () -> "running".equals(stack.vm("sleeper").get("status")));
    eventually("the process exists", () -> Stack.processes("sleep 300").size() == 1);

    assertEquals(202, stack.api("DELETE", "/v1/vms/sleeper", null).status());
    eventually(
        "gone from the API", () -> stack.api("GET", "/v1/vms/sleeper", null).status() == 404);
    eventually("the process is gone", () -> Stack.processes("sleep 300").isEmpty());
  }

  /**
   * A claim from a warm pool takes a replica that already runs and makes it the user's VM: its one
   * process runs on untouched, never a second, and the pool boots a replacement. What its view
   * shows, its stop and its logs reach that process; at its max the pool holds fewer replicas, and
   * with none ready a claim is refused and changes nothing.
   */
  @Test
  void aVmClaimedFromAPoolIsARunningReplicaRenamedAndThePoolRefills() throws Exception {
    String sleep = "sleep 321";
    assertEquals(
        201,
        stack
            .api(
                "POST",
                "/v1/pools",
                "{\"name\":\"warm\",\"minReady\":2,\"max\":3,"
                    + "\"template\":{\"command\":[\"sh\",\"-c\",\"echo up; exec "
                    + sleep
                    + "\"]}}")
            .status());
    try {
      eventually("two replicas ready", () -> pool("warm").get("ready").equals(2));
    } catch (AssertionError e) {
      throw new AssertionError(
          e.getMessage() + "; its replicas: " + stack.api("GET", "/v1/vms?set=warm", null).body(),
          e);
    }
    eventually("their two processes", () -> Stack.processes(sleep).size() == 2);
    java.util.Set<Long> booted = pids(sleep);

    RotaClient.Reply claimed =
        stack.api("POST", "/v1/vms", "{\"name\":\"job-1\",\"fromPool\":\"warm\"}");
    assertEquals(201, claimed.status(), claimed.body());
    assertEquals("running", claimed.map().get("status"), "ready at once: " + claimed.body());
    String replica =
        stack
            .api("GET", "/v1/vms/job-1/events?limit=100", null)
            .body()
            .replaceAll("(?s).*as replica (warm-[0-9]+).*", "$1");
    assertTrue(replica.matches("warm-[0-9]+"), replica);
    assertEquals(404, stack.api("GET", "/v1/vms/" + replica, null).status(), "renamed");
    long job1 = pidOfTask(replica + ".0", sleep);
    assertTrue(booted.contains(job1), "its task is the replica's, as booted: " + job1);

    eventually(
        "the pool booted a replacement: two ready again, one claimed",
        () -> pool("warm").get("ready").equals(2) && pool("warm").get("claimed").equals(1));
    eventually("three processes", () -> Stack.processes(sleep).size() == 3);
    assertTrue(pids(sleep).containsAll(booted), "the claimed replica's process ran on: " + booted);
    assertEquals("running", stack.vm("job-1").get("status"));
    assertEquals("up\n", stack.api("GET", "/v1/vms/job-1/logs", null).body());

    // Its max is 3 VMs out: with two claimed, the pool keeps one replica.
    assertEquals(
        201, stack.api("POST", "/v1/vms", "{\"name\":\"job-2\",\"fromPool\":\"warm\"}").status());
    eventually(
        "one replica kept beside two claimed",
        () ->
            pool("warm").get("claimed").equals(2)
                && pool("warm").get("ready").equals(1)
                && Stack.processes(sleep).size() == 3);
    RotaClient.Reply taken =
        stack.api("POST", "/v1/vms", "{\"name\":\"job-2\",\"fromPool\":\"warm\"}");
    assertEquals(409, taken.status(), taken.body());
    RotaClient.Reply withCommand =
        stack.api(
            "POST", "/v1/vms", "{\"name\":\"job-3\",\"fromPool\":\"warm\",\"command\":[\"true\"]}");
    assertEquals(400, withCommand.status());
    assertTrue(withCommand.body().contains("command"), withCommand.body());
    assertEquals(1, pool("warm").get("ready"), "a refused claim takes nothing");

    assertEquals(202, stack.api("POST", "/v1/vms/job-1/stop", null).status());
    eventually("job-1 stopped", () -> "stopped".equals(stack.vm("job-1").get("status")));
    eventually(
        "its process ended",
        () -> ProcessHandle.of(job1).map(ProcessHandle::isAlive).orElse(false) == false);
    assertEquals(2, Stack.processes(sleep).size(), "job-2's and the pool's one replica's");
    assertEquals(2, pool("warm").get("claimed"), "a stopped VM claimed from it still counts");

    assertEquals(202, stack.api("DELETE", "/v1/pools/warm", null).status());
    eventually("the pool gone", () -> stack.api("GET", "/v1/pools/warm", null).status() == 404);
    eventually("its replicas' processes ended", () -> Stack.processes(sleep).size() == 1);
    assertEquals("running", stack.vm("job-2").get("status"), "a claimed VM is its user's");
    assertEquals(202, stack.api("DELETE", "/v1/vms/job-2", null).status());
    assertEquals(202, stack.api("DELETE", "/v1/vms/job-1", null).status());
    eventually("every process ended", () -> Stack.processes(sleep).isEmpty());
  }

  @SuppressWarnings("unchecked")
  private Map<String, Object> pool(String name) {
    return (Map<String, Object>) stack.api("GET", "/v1/pools/" + name, null).map().get("status");
  }

  /** The process of task {@code taskId} (the folder it runs in), or -1. */
  private static long pidOfTask(String taskId, String args) {
    for (ProcessHandle p : Stack.processes(args)) {
      try {
        if (java.nio.file.Files.readSymbolicLink(
                java.nio.file.Path.of("/proc", Long.toString(p.pid()), "cwd"))
            .getFileName()
            .toString()
            .equals(taskId)) {
          return p.pid();
        }
      } catch (java.io.IOException gone) {
        // ended between the listing and the look
      }
    }
    return -1;
  }

  private static java.util.Set<Long> pids(String args) {
    return Stack.processes(args).stream()
        .map(ProcessHandle::pid)
        .collect(java.util.stream.Collectors.toSet());
  }

  /**
   * A secret's value reaches the environment of the VM that refers to it, and nothing else: no
   * answer, no file in the data folder (the database, the agents' records), no Temporal history and
   * no log line at DEBUG.
   */
  @Test
  void aSecretReachesItsVmsEnvironmentAndNoAnswerFileHistoryOrLog() throws Exception {
    String value = "tok-" + Long.toHexString(System.nanoTime()) + "-e2e";
    ch.qos.logback.classic.Logger root =
        (ch.qos.logback.classic.Logger)
            org.slf4j.LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
    ch.qos.logback.classic.Level level = root.getLevel();
    ch.qos.logback.core.read.ListAppender<ch.qos.logback.classic.spi.ILoggingEvent> lines =
        new ch.qos.logback.core.read.ListAppender<>();
    lines.start();
    root.addAppender(lines);
    root.setLevel(ch.qos.logback.classic.Level.DEBUG);
    try {
      assertEquals(
          201,
          stack
              .api("POST", "/v1/secrets", "{\"name\":\"e2e-token\",\"value\":\"" + value + "\"}")
              .status());
      assertEquals(
          201,
          stack
              .api(
                  "POST",
                  "/v1/vms",
                  "{\"name\":\"secret-user\","
                      + "\"command\":[\"sh\",\"-c\",\"echo $TOKEN; exec sleep 310\"],"
                      + "\"env\":{\"TOKEN\":{\"secretRef\":\"e2e-token\"}}}")
              .status());
      eventually(
          "the VM has the value in its environment",
          () -> stack.api("GET", "/v1/vms/secret-user/logs", null).body().equals(value + "\n"));
    } finally {
      root.setLevel(level);
      root.detachAppender(lines);
    }
    for (String path :
        List.of(
            "/v1/vms/secret-user",
            "/v1/vms",
            "/v1/vms/secret-user/events",
            "/v1/secrets",
            "/v1/secrets/e2e-token")) {
      RotaClient.Reply r = stack.api("GET", path, null);
      assertEquals(200, r.status(), path);
      assertEquals(false, r.body().contains(value), path + ": " + r.body());
    }
    assertTrue(
        stack.api("GET", "/v1/vms/secret-user", null).body().contains("e2e-token"),
        "the VM shows the secret's name");
    assertTrue(lines.list.size() > 100, "DEBUG was on: " + lines.list.size() + " lines");
    for (ch.qos.logback.classic.spi.ILoggingEvent line : lines.list) {
      String text =
          line.getFormattedMessage()
              + (line.getThrowableProxy() == null ? "" : line.getThrowableProxy().getMessage());
      assertEquals(false, text.contains(value), "a log line: " + text);
    }
    io.temporal.client.WorkflowClient temporal =
        stack.host.context().getBean(io.temporal.client.WorkflowClient.class);
    List<String> workflows =
        List.of(
            dev.rota.workflows.vm.VmWorkflow.workflowId("secret-user"),
            dev.rota.workflows.cluster.ClusterWorkflow.WORKFLOW_ID);
    eventually(
        "the VM's workflow has begun",
        () -> {
          try {
            temporal.fetchHistory(workflows.get(0));
            return true;
          } catch (RuntimeException e) {
            return false;
          }
        });
    for (String id : workflows) {
      // The text form shows payloads' bytes as they are: a value would be there verbatim.
      String history = temporal.fetchHistory(id).getHistory().toString();
      assertEquals(false, history.contains(value), "the history of " + id);
    }
    try (java.util.stream.Stream<java.nio.file.Path> files =
        java.nio.file.Files.walk(dir.resolve("data"))) {
      for (java.nio.file.Path f : files.filter(java.nio.file.Files::isRegularFile).toList()) {
        // The VM's own output holds what it printed: the value, as it was asked to.
        if (!f.getFileName().toString().contains("stdout")) {
          byte[] bytes = java.nio.file.Files.readAllBytes(f);
          assertEquals(
              false,
              new String(bytes, java.nio.charset.StandardCharsets.ISO_8859_1).contains(value),
              f.toString());
        }
      }
    }
    assertEquals(202, stack.api("DELETE", "/v1/vms/secret-user", null).status());
  }

  @Test
  void aVmsOutputIsServedThroughTheApiFromItsWorker() {
    stack.api(
        "POST",
        "/v1/vms",
        "{\"name\":\"talker\",\"command\":[\"sh\",\"-c\",\"echo to-stdout; echo to-stderr >&2; sleep 300\"]}");
    eventually("running", () -> "running".equals(stack.vm("talker").get("status")));
    eventually(
        "stdout passed through",
        () -> stack.api("GET", "/v1/vms/talker/logs", null).body().contains("to-stdout"));
    RotaClient.Reply stderr = stack.api("GET", "/v1/vms/talker/logs?stream=stderr", null);
    assertEquals(200, stderr.status());
    assertEquals("to-stderr\n", stderr.body());

    RotaClient.Reply bad = stack.api("GET", "/v1/vms/talker/logs?stream=stdin", null);
    assertEquals(400, bad.status());
    assertTrue(bad.body().contains("stream: must be stdout or stderr"), bad.body());
    assertEquals(404, stack.api("GET", "/v1/vms/nobody/logs", null).status());
    stack.api("POST", "/v1/vms/talker/stop", null);
    eventually("stopped", () -> "stopped".equals(stack.vm("talker").get("status")));
    RotaClient.Reply kept = stack.api("GET", "/v1/vms/talker/logs", null);
    assertEquals(200, kept.status(), "its task was removed with the stop: " + kept.body());
    assertEquals("to-stdout\n", kept.body(), "the output outlives the task");
    assertEquals("false", kept.header("Rota-Log-Live"));
    assertEquals("talker.0", kept.header("Rota-Log-Task"));
  }

  @Test
  void aCrashingVmsOutputIsKeptForTheGenerationBeforeUntilTheVmIsDeleted() {
    stack.api(
        "POST",
        "/v1/vms",
        "{\"name\":\"last-words\",\"command\":[\"sh\",\"-c\",\"echo dying; exit 1\"],"
            + "\"restartPolicy\":\"OnFailure\"}");
    eventually(
        "restarted", () -> ((Number) stack.vm("last-words").get("restartCount")).intValue() >= 1);
    int generation = ((Number) stack.vm("last-words").get("restartCount")).intValue();
    RotaClient.Reply previous = stack.api("GET", "/v1/vms/last-words/logs?previous=true", null);
    assertEquals(200, previous.status(), previous.body());
    assertEquals("dying\n", previous.body());
    int after = ((Number) stack.vm("last-words").get("restartCount")).intValue();
    String task = previous.header("Rota-Log-Task");
    int read = Integer.parseInt(task.substring("last-words.".length()));
    assertTrue(
        read >= generation - 1 && read <= after - 1,
        task + " is the generation before the current");
    assertEquals(400, stack.api("GET", "/v1/vms/last-words/logs?previous=maybe", null).status());

    Map<String, Object> vm = stack.vm("last-words");
    assertEquals(202, stack.api("DELETE", "/v1/vms/last-words", null).status());
    eventually("deleted", () -> stack.api("GET", "/v1/vms/last-words", null).status() == 404);
    AgentClient client = stack.host.context().getBean(AgentClient.class);
    // An ended task's own folder goes with the term that removes the task (no VM owns it now);
    // the logs kept of removed ones went with the deletion.
    eventually(
        "the logs of a deleted VM go: " + vm,
        () -> {
          for (Agent agent : stack.host.devAgents()) {
            AgentAddress address =
                new AgentAddress(
                    "https://127.0.0.1:" + agent.port(), agent.secret(), agent.certificateSha256());
            for (int g = 0; g <= generation; g++) {
              try {
                client.logs(
                    address,
                    "last-words." + g,
                    new LogQuery("stdout", null, null, null),
                    Duration.ofSeconds(10));
                return false;
              } catch (AgentRejectedException e) {
                if (e.status() != 404) {
                  return false;
                }
              }
            }
          }
          return true;
        });
  }

  /** Creates VM {@code name} that writes sixty lines and sleeps; returns what it writes. */
  private String sixtyLines(String name, String more) {
    stack.api(
        "POST",
        "/v1/vms",
        "{\"name\":\""
            + name
            + "\","
            + more
            + "\"command\":[\"sh\",\"-c\","
            + "\"for i in $(seq 1 60); do echo line-$i; sleep 0.02; done; sleep 300\"]}");
    StringBuilder expected = new StringBuilder();
    for (int i = 1; i <= 60; i++) {
      expected.append("line-").append(i).append('\n');
    }
    return expected.toString();
  }

  @Test
  void aFollowerReadsEachLineOnceFromWhereItsLastReadEnded() {
    String expected = sixtyLines("writer", "");
    eventually("running", () -> "running".equals(stack.vm("writer").get("status")));
    StringBuilder read = new StringBuilder();
    long next = 0;
    int reads = 0;
    while (!read.toString().endsWith("line-60\n") && reads++ < 1000) {
      RotaClient.Reply r =
          stack.api("GET", "/v1/vms/writer/logs?from=" + next + "&waitSeconds=5", null);
      assertEquals(200, r.status(), r.body());
      read.append(r.body());
      next = Long.parseLong(r.header("Rota-Log-Next"));
    }
    assertEquals(expected, read.toString(), "each line once, in order, in " + reads);
    stack.api("DELETE", "/v1/vms/writer", null);
  }

  /** What a held log stream sends until its sixtieth line, each read while the stream holds. */
  private static String untilTheSixtiethLine(java.io.InputStream in) throws java.io.IOException {
    StringBuilder read = new StringBuilder();
    byte[] buffer = new byte[4096];
    while (!read.toString().endsWith("line-60\n")) {
      int n = in.read(buffer);
      assertTrue(n > 0, "the stream holds while the task runs: " + read);
      read.append(new String(buffer, 0, n, java.nio.charset.StandardCharsets.UTF_8));
    }
    return read.toString();
  }

  /** {@code GET /v1/vms/NAME/logs?follow=true}, answered 200 and held open. */
  private java.net.HttpURLConnection followed(String vm) throws java.io.IOException {
    java.net.HttpURLConnection follow =
        (java.net.HttpURLConnection)
            java.net
                .URI
                .create("http://127.0.0.1:" + stack.port + "/v1/vms/" + vm + "/logs?follow=true")
                .toURL()
                .openConnection();
    follow.setReadTimeout(60_000);
    assertEquals(200, follow.getResponseCode());
    return follow;
  }

  @Test
  void aFollowedLogStreamsEachLineOnceWhileTheTaskRunsAndEndsWithIt() throws Exception {
    String expected = sixtyLines("streamer", "\"restartPolicy\":\"Never\",");
    eventually("running", () -> "running".equals(stack.vm("streamer").get("status")));
    java.net.HttpURLConnection follow = followed("streamer");
    assertEquals("0", follow.getHeaderField("Rota-Log-From"));
    assertEquals("streamer.0", follow.getHeaderField("Rota-Log-Task"));
    try (java.io.InputStream in = follow.getInputStream()) {
      byte[] buffer = new byte[4096];
      String read = untilTheSixtiethLine(in);
      assertEquals(expected, read, "each line once, in order");
      assertEquals("running", stack.vm("streamer").get("status"), "read while it runs");
      stack.api("POST", "/v1/vms/streamer/stop", null);
      assertEquals(-1, in.read(buffer), "the stream ends when the task does");
    }
    RotaClient.Reply both =
        stack.api("GET", "/v1/vms/streamer/logs?follow=true&waitSeconds=1", null);
    assertEquals(400, both.status());
    assertTrue(both.body().contains("waitSeconds"), both.body());
    stack.api("DELETE", "/v1/vms/streamer", null);
  }

  @Test
  void aFollowedLogEndsCleanlyWhenItsVmIsDeleted() throws Exception {
    sixtyLines("deleted-while-read", "");
    eventually("running", () -> "running".equals(stack.vm("deleted-while-read").get("status")));
    java.net.HttpURLConnection follow = followed("deleted-while-read");
    try (java.io.InputStream in = follow.getInputStream()) {
      byte[] buffer = new byte[4096];
      untilTheSixtiethLine(in);
      assertEquals(202, stack.api("DELETE", "/v1/vms/deleted-while-read", null).status());
      // The task and its log go with the VM: the stream ends as a finished one does, not broken
      // (an IOException) once the host has given up asking the agent for a log it no longer has.
      assertEquals(-1, in.read(buffer), "the stream ends with its VM");
    }
  }

  @Test
  void aNamedPortIsReachedAtTheEndpointItsViewShows() throws Exception {
    java.nio.file.Path dir = java.nio.file.Files.createTempDirectory("echo");
    assertEquals(201, stack.api("POST", "/v1/vms", EchoVm.body("served", dir)).status());
    eventually(
        "running, its endpoint shown",
        () ->
            "running".equals(stack.vm("served").get("status"))
                && !((List<?>) stack.vm("served").get("endpoints")).isEmpty());
    Map<?, ?> endpoint = (Map<?, ?>) ((List<?>) stack.vm("served").get("endpoints")).get(0);
    assertEquals("web", endpoint.get("name"));
    assertEquals(80, endpoint.get("port"));
    String[] address = ((String) endpoint.get("address")).split(":");
    assertEquals("127.0.0.1", address[0], "the worker's address");
    String[] answer = new String[1];
    eventually(
        "it answers there",
        () -> {
          try (java.net.Socket s = new java.net.Socket(address[0], Integer.parseInt(address[1]))) {
            s.getOutputStream().write("hi".getBytes());
            s.shutdownOutput();
            answer[0] = new String(s.getInputStream().readAllBytes());
            return true;
          } catch (java.io.IOException e) {
            return false;
          }
        });
    assertEquals("served on " + address[1] + "\nHI", answer[0]);
    stack.api("POST", "/v1/vms/served/stop", null);
    eventually("stopped", () -> "stopped".equals(stack.vm("served").get("status")));
    assertEquals(List.of(), stack.vm("served").get("endpoints"), "a VM that does not run has none");
    stack.api("DELETE", "/v1/vms/served", null);
  }

  @Test
  void aVmBiggerThanAnyWorkerIsPendingAsUnplaceableWithTheReason() {
    stack.api(
        "POST",
        "/v1/vms",
        "{\"name\":\"giant\",\"command\":[\"sleep\",\"1\"],\"resources\":{\"cpu\":4096}}");
    eventually("judged", () -> Boolean.TRUE.equals(stack.vm("giant").get("unplaceable")));
    Map<String, Object> vm = stack.vm("giant");
    assertEquals("pending", vm.get("status"));
    assertTrue(
        String.valueOf(vm.get("statusMessage"))
            .startsWith("fits no worker of the cluster: needs cpu 4096"),
        String.valueOf(vm.get("statusMessage")));
    stack.api("DELETE", "/v1/vms/giant", null);
  }

  /**
   * A lease begins when the VM runs, an extension moves its end by what it says, and when it runs
   * out the VM is stopped (its process ended) with the reason in its status and events.
   */
  @Test
  void aVmWhoseLeaseRunsOutIsStoppedAndItsProcessEnds() {
    assertEquals(
        201,
        stack
            .api(
                "POST",
                "/v1/vms",
                "{\"name\":\"leased\",\"command\":[\"sleep\",\"302\"],\"maxRunDuration\":\"3s\"}")
            .status());
    try {
      eventually("its lease began", () -> stack.vm("leased").get("leaseExpiresAt") != null);
    } catch (AssertionError e) {
      throw new AssertionError(
          stack.vm("leased") + "\n" + stack.api("GET", "/v1/vms/leased/events", null).body(), e);
    }
    java.time.Instant began =
        java.time.Instant.parse((String) stack.vm("leased").get("leaseExpiresAt"));
    RotaClient.Reply extended = stack.api("PUT", "/v1/vms/leased/lease", "{\"extendBy\":\"2s\"}");
    assertEquals(200, extended.status(), extended.body());
    java.time.Instant endsAt =
        java.time.Instant.parse((String) extended.map().get("leaseExpiresAt"));
    assertEquals(began.plusSeconds(2), endsAt, "extended by what it said");

    eventually("stopped", () -> "stopped".equals(stack.vm("leased").get("status")));
    Map<String, Object> vm = stack.vm("leased");
    assertTrue(
        String.valueOf(vm.get("statusMessage")).contains("its lease of 3s ran out"),
        String.valueOf(vm.get("statusMessage")));
    assertEquals(null, vm.get("leaseExpiresAt"), "no lease under way once stopped");
    eventually("the process is gone", () -> Stack.processes("sleep 302").isEmpty());
    @SuppressWarnings("unchecked")
    List<Map<String, Object>> events =
        (List<Map<String, Object>>)
            stack.api("GET", "/v1/vms/leased/events?limit=100", null).map().get("items");
    List<Object> types = events.stream().map(e -> e.get("type")).toList();
    assertTrue(
        types.containsAll(List.of("lease-started", "lease-extended", "lease-expired")),
        types.toString());
    java.time.Instant expired =
        java.time.Instant.parse(
            (String)
                events.stream()
                    .filter(e -> "lease-expired".equals(e.get("type")))
                    .findFirst()
                    .orElseThrow()
                    .get("time"));
    assertTrue(!expired.isBefore(endsAt), "not before its lease ran out: " + expired);
    stack.api("DELETE", "/v1/vms/leased", null);
  }

  @Test
  void aCommandExitingThreeUnderNeverEndsFailedWithExitCodeThree() {
    stack.api(
        "POST",
        "/v1/vms",
        "{\"name\":\"exit-three\",\"command\":[\"sh\",\"-c\",\"exit 3\"],\"restartPolicy\":\"Never\"}");
    eventually("failed", () -> "failed".equals(stack.vm("exit-three").get("status")));
    Map<String, Object> vm = stack.vm("exit-three");
    assertEquals(3, vm.get("exitCode"));
    assertEquals(0, vm.get("restartCount"));
  }

  @Test
  void underOnFailureItRestartsWithGrowingDelays() {
    stack.api(
        "POST",
        "/v1/vms",
        "{\"name\":\"crashy\",\"command\":[\"sh\",\"-c\",\"exit 1\"],\"restartPolicy\":\"OnFailure\"}");
    eventually(
        "waiting to restart, saying when",
        () -> {
          Map<String, Object> vm = stack.vm("crashy");
          return "failed".equals(vm.get("status")) && vm.get("restartAt") != null;
        });
    eventually(
        "restarted twice", () -> ((Number) stack.vm("crashy").get("restartCount")).intValue() >= 2);
    eventually(
        "the restart time goes once it is restarted",
        () -> {
          Map<String, Object> vm = stack.vm("crashy");
          return !"failed".equals(vm.get("status")) && vm.get("restartAt") == null;
        });
    List<String> events = stack.eventTypes("crashy");
    assertTrue(
        events.contains("restart-scheduled") && events.contains("restarted"), events.toString());
    // Each end is heard twice here (the agent's report, then the placement's notification reading
    // the row after it); each must be counted once: as many restarts scheduled as tasks ended.
    long ended = events.stream().filter(e -> e.equals("failed")).count();
    long scheduled = events.stream().filter(e -> e.equals("restart-scheduled")).count();
    assertTrue(scheduled == ended || scheduled == ended - 1, "one restart per end: " + events);
  }

  @Test
  void aTaskPutOnAnAgentByHandIsRemovedAsAnOrphan() {
    Agent agent = stack.host.devAgents().get(1);
    // By hand, over the agent's HTTPS, trusting its certificate by its pin as the controller does.
    AgentClient client = stack.host.context().getBean(AgentClient.class);
    AgentAddress address =
        new AgentAddress(
            "https://127.0.0.1:" + agent.port(), agent.secret(), agent.certificateSha256());
    client.startTask(
        address,
        "stray.0",
        new TaskSpec("stray", 0, "process", null, List.of("sleep", "301"), Map.of(), Map.of()),
        Duration.ofSeconds(10));
    // Started: its cgroup's shell execs into sleep a moment later, and the process list may catch
    // it between.
    eventually("its process runs", () -> Stack.processes("sleep 301").size() == 1);
    eventually(
        "removed by the scheduler",
        () ->
            client.probe(address, Duration.ofSeconds(10)).tasks().stream()
                .noneMatch(t -> t.id().equals("stray.0")));
    eventually("and its process ended", () -> Stack.processes("sleep 301").isEmpty());
  }
}
