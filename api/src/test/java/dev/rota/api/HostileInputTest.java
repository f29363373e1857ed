package dev.rota.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rota.store.VmRepository;
import dev.rota.store.WorkerRepository;
import dev.rota.workflows.vm.VmWorkflow;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowNotFoundException;
import jakarta.inject.Inject;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/**
 * Thousands of malformed and oversized requests at every endpoint, each broken on purpose in one
 * way: only 4xx answers, never a 5xx, and nothing stored, no workflow started. Seeded, so a failure
 * reproduces.
 */
@MicronautTest
class HostileInputTest {
  static final int REQUESTS = 3000;

  @Inject Http http;
  @Inject VmRepository vms;
  @Inject WorkerRepository workers;
  @Inject WorkflowClient temporal;

  private final Random random = new Random(20261121);

  private String junk(int max) {
    int n = random.nextInt(max + 1);
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < n; i++) {
      b.append((char) (random.nextInt(3) == 0 ? random.nextInt(0x3000) : 32 + random.nextInt(95)));
    }
    return b.toString();
  }

  private String quoted(String s) {
    return "\""
        + s.replace("\\", "\\\\").replace("\"", "\\\"").replaceAll("[\\x00-\\x1f]", " ")
        + "\"";
  }

  private String deep(int depth) {
    return "[".repeat(depth) + "]".repeat(depth);
  }

  /** Ways to break a VM request; each yields a body no valid VM can come from. */
  private final List<Function<String, String>> vmBreakers =
      List.of(
          n -> "{\"name\":" + quoted("FZ_" + n) + ",\"command\":[\"true\"]}",
          n ->
              "{\"name\":"
                  + quoted(n)
                  + ",\"command\":[\"true\"],\"resources\":{\"cpu\":"
                  + (-1 - random.nextInt(1000))
                  + "}}",
          n ->
              "{\"name\":"
                  + quoted(n)
                  + ",\"command\":[\"true\"],\"resources\":{\"cpu\":"
                  + random.nextInt(9)
                  + ".5}}",
          n ->
              "{\"name\":"
                  + quoted(n)
                  + ",\"command\":[\"true\"],\"resources\":{\"cpu\":\""
                  + junk(10)
                  + "\"}}",
          n -> "{\"name\":" + quoted(n) + ",\"command\":[\"true\"],\"resources\":{\"cpu\":1e400}}",
          n ->
              "{\"name\":"
                  + quoted(n)
                  + ",\"command\":[\"true\"],\"restartPolicy\":"
                  + quoted(junk(12))
                  + "}",
          n -> "{\"name\":" + quoted(n) + "}",
          n -> "{\"name\":" + quoted(n) + ",\"command\":" + quoted(junk(30)) + "}",
          n -> "{\"name\":" + quoted(n) + ",\"command\":" + deep(1 + random.nextInt(2000)) + "}",
          n ->
              "{\"name\":"
                  + quoted(n)
                  + ",\"command\":[\"true\"],\"env\":{\"A\":"
                  + deep(1 + random.nextInt(50))
                  + "}}",
          n -> "{\"name\":" + quoted(n) + ",\"command\":[\"true\"],\"env\":{\"1BAD\":\"x\"}}",
          n ->
              "{\"name\":"
                  + quoted(n)
                  + ",\"command\":[\"true\"],\"labels\":{"
                  + quoted(" " + junk(20))
                  + ":\"x\"}}",
          n -> "{\"name\":" + quoted(n) + ",\"command\":[" + "\"a\",".repeat(300) + "\"a\"]}",
          n -> "{\"name\":" + quoted(n) + ",\"command\":[\"" + "x".repeat(9000) + "\"]}",
          n ->
              "{\"name\":"
                  + quoted(n)
                  + ",\"command\":[\"true\"],\"image\":\""
                  + "i".repeat(3000)
                  + "\"}",
          n -> "{\"name\":" + quoted(n) + ",\"command\":[\"" + "y".repeat(1_100_000) + "\"]}",
          n -> "{\"name\":" + quoted(n) + ",\"command\":[\"true\"]" + junk(5) + "{",
          n -> junk(200),
          n -> "",
          n -> "null",
          n -> "[" + quoted(n) + "]",
          n -> "{\"name\":null,\"command\":[\"true\"]}",
          n -> "{\"name\":" + (random.nextInt(1000)) + ",\"command\":[\"true\"]}",
          n -> "{\"name\":" + quoted(n + "-") + ",\"command\":[\"true\"]}",
          n ->
              "{\"name\":"
                  + quoted("a".repeat(64 + random.nextInt(100)))
                  + ",\"command\":[\"true\"]}");

  private final List<Function<String, String>> workerBreakers =
      List.of(
          n -> "{\"name\":" + quoted(n.toUpperCase()) + ",\"endpoint\":\"http://a:1\"}",
          n -> "{\"name\":" + quoted(n) + ",\"endpoint\":" + quoted(junk(40)) + "}",
          n -> "{\"name\":" + quoted(n) + "}",
          n ->
              "{\"name\":" + quoted(n) + ",\"endpoint\":\"http://a:1\",\"resources\":{\"cpu\":-3}}",
          n ->
              "{\"name\":"
                  + quoted(n)
                  + ",\"endpoint\":\"http://a:1\",\"runtimes\":"
                  + quoted(junk(8))
                  + "}",
          n ->
              "{\"name\":"
                  + quoted(n)
                  + ",\"endpoint\":\"http://a:1\",\"labels\":"
                  + deep(1 + random.nextInt(100))
                  + "}",
          n -> junk(300));

  private String name() {
    return "fz-" + Integer.toString(random.nextInt(1 << 30), 36);
  }

  private String path() {
    String[] weird = {
      "..",
      "%2e%2e%2f",
      "%00",
      "a".repeat(300),
      "UPPER",
      "x y",
      "%ff%fe",
      "\u00e9",
      "fz-" + junk(3).replaceAll("[^a-z]", "")
    };
    String segment =
        java.net.URLEncoder.encode(
            weird[random.nextInt(weird.length)], java.nio.charset.StandardCharsets.UTF_8);
    String[] templates = {
      "/v1/vms/%s",
      "/v1/vms/%s/events",
      "/v1/vms/%s/logs",
      "/v1/vms/talker/logs?stream=%s",
      "/v1/vms/%s/stop",
      "/v1/vms/%s/start",
      "/v1/vms/%s/restart",
      "/v1/vms/%s/suspend",
      "/v1/workers/%s",
      "/v1/workers/%s/heartbeat",
      "/v1/workers/%s/tasks",
      "/v1/vms?limit=%s",
      "/v1/vms?cursor=%s",
      "/v1/vms?status=%s",
      "/v1/workers?limit=%s",
      "/v1/service-accounts/%s"
    };
    return String.format(templates[random.nextInt(templates.length)], segment);
  }

  @Test
  void onlyClientErrorsAndNothingStored() {
    long vmsBefore = vms.count();
    long workersBefore = workers.count();
    Map<Integer, Integer> statuses = new TreeMap<>();
    List<String> names = new ArrayList<>();
    for (int i = 0; i < REQUESTS; i++) {
      Http.Reply reply;
      int kind = random.nextInt(10);
      if (kind < 5) {
        String n = name();
        names.add(n);
        reply = http.post("/v1/vms", vmBreakers.get(random.nextInt(vmBreakers.size())).apply(n));
      } else if (kind < 7) {
        reply =
            http.post(
                "/v1/workers",
                workerBreakers.get(random.nextInt(workerBreakers.size())).apply(name()));
      } else if (kind == 7) {
        reply =
            http.patch(
                "/v1/workers/" + name(),
                random.nextBoolean()
                    ? junk(100)
                    : "{\"schedulingPaused\":" + quoted(junk(5)) + "}");
      } else if (kind == 8) {
        reply =
            http.put(
                "/v1/cluster-settings",
                random.nextBoolean()
                    ? junk(80)
                    : "{\"schedulerProfile\":" + quoted(junk(15)) + "}");
      } else {
        String[] methods = {"GET", "POST", "PUT", "DELETE", "PATCH"};
        reply =
            http.send(
                methods[random.nextInt(methods.length)],
                path(),
                random.nextBoolean() ? null : junk(50));
      }
      statuses.merge(reply.status(), 1, Integer::sum);
      assertTrue(
          reply.status() >= 400 && reply.status() < 500, "request " + i + " answered " + reply);
    }
    System.out.println("fuzz: " + REQUESTS + " hostile requests, answers by status " + statuses);
    assertEquals(vmsBefore, vms.count(), "no VM row");
    assertEquals(workersBefore, workers.count(), "no worker row");
    for (String n : names.subList(0, Math.min(200, names.size()))) {
      try {
        temporal.newUntypedWorkflowStub(VmWorkflow.workflowId(n)).describe();
        throw new AssertionError("a workflow was started for " + n);
      } catch (WorkflowNotFoundException expected) {
        // as it should be
      }
    }
  }
}
