package dev.rota.host;

import static dev.rota.testing.Eventually.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Schedules on the real Temporal server, making real processes: each overlap policy as a run is
 * triggered while the last one's VM still runs (skip, cancel the previous, buffer one), a run whose
 * host is killed (SIGKILL) while it waits on its VM, a schedule every 10 s making VMs side by side
 * (allow all), its pause, its page in the Temporal UI (read in headless Chromium), and its
 * deletion, which leaves its VMs running.
 */
class ScheduleIT {
  private static final Path SCREENSHOTS = Path.of("target", "ui-screenshots");

  /** A template of one parameter, the command, with a process that runs until stopped. */
  private static final String TEMPLATE =
      """
      {"name": "tick", "spec": {"command": ["sleep", "971000"], "restartPolicy": "Never"},
       "parameters": [{"name": "run", "type": "list", "field": "command"}]}""";

  /** Makes the schedule: a VM of the template whose process is {@code sleep <sleep>}. */
  private static void create(
      RotaClient api, String name, String when, String overlap, String sleep) {
    RotaClient.Reply made =
        api.api(
            "POST",
            "/v1/schedules",
            "{\"name\":\""
                + name
                + "\",\"template\":\"tick\",\"parameters\":{\"run\":[\"sleep\",\""
                + sleep
                + "\"]},"
                + when
                + ",\"overlap\":\""
                + overlap
                + "\"}");
    assertEquals(201, made.status(), made.body());
  }

  /** Paused, with an hour between runs: every run here is one the test triggers. */
  private static final String BY_HAND = "\"interval\":\"1h\",\"paused\":true";

  @Test
  void eachOverlapPolicyDoesWhatItSaysToRealVms() throws Exception {
    try (ProductionStack stack =
            ProductionStack.start(
                ProductionStack.folder("schedules"),
                1,
                1,
                Map.of("ROTA_SCHEDULER_INTERVAL", "1s"));
        WebUi ui =
            WebUi.open(
                RealServices.chromium(),
                Files.createTempDirectory("rota-it-chromium"),
                SCREENSHOTS)) {
      RotaClient api = stack.admin(0);
      assertEquals(201, api.api("POST", "/v1/templates", TEMPLATE).status());

      // skip: a run due while the last one's VM runs is not made.
      create(api, "skips", BY_HAND, "skip", "971001");
      String first = triggeredRunning(api, "skips", "971001");
      trigger(api, "skips");
      eventually(
          "the second run skipped",
          () ->
              ((Number) api.api("GET", "/v1/schedules/skips", null).map().get("skipped")).intValue()
                  == 1);
      assertEquals(List.of(first), running(api, "skips"));
      assertEquals(1, processes("971001"), "one process: the first run's");

      // The host waiting on that run's VM killed and started again: the schedule and the run
      // outlive it, another attempt of the wait takes over, and the run ends once its one VM stops.
      stack.host(0).kill();
      stack.restartHost(0);
      assertEquals(List.of(first), running(api, "skips"), "the run outlives the host");
      stop(api, first);
      eventually(
          "the run ended with its VM, its wait taken up after the host died",
          Duration.ofSeconds(60),
          () -> running(api, "skips").isEmpty());
      assertEquals(
          List.of(first),
          api.items("/v1/vms").stream()
              .map(vm -> (String) vm.get("name"))
              .filter(name -> name.startsWith("skips-"))
              .toList(),
          "one VM for the one run made");

      // cancelOther: the last run's VM is stopped, then the new one made.
      create(api, "replaces", BY_HAND, "cancelOther", "971002");
      String replaced = triggeredRunning(api, "replaces", "971002");
      trigger(api, "replaces");
      eventually(
          "the first run's VM stopped and a second VM running in its place",
          Duration.ofSeconds(60),
          () -> {
            List<String> now = running(api, "replaces");
            return "stopped".equals(api.vm(replaced).get("status"))
                && now.size() == 1
                && !now.contains(replaced)
                && "running".equals(api.vm(now.get(0)).get("status"))
                && processes("971002") == 1;
          });

      stop(api, running(api, "replaces").get(0));

      // bufferOne: one run waits for the last to end; one more due meanwhile is dropped.
      create(api, "buffers", BY_HAND, "bufferOne", "971003");
      String buffering = triggeredRunning(api, "buffers", "971003");
      trigger(api, "buffers");
      trigger(api, "buffers");
      assertEquals(List.of(buffering), running(api, "buffers"), "the others wait");
      stop(api, buffering);
      eventually(
          "the buffered run made its VM once the first ended",
          Duration.ofSeconds(60),
          () -> {
            List<String> now = running(api, "buffers");
            return now.size() == 1
                && !now.contains(buffering)
                && "running".equals(api.vm(now.get(0)).get("status"));
          });
      String buffered = running(api, "buffers").get(0);
      stop(api, buffered);
      eventually(
          "the buffer held one run: two runs in all, none running",
          Duration.ofSeconds(60),
          () -> {
            Map<String, Object> s = api.api("GET", "/v1/schedules/buffers", null).map();
            return ((List<?>) s.get("runningVms")).isEmpty()
                && ((Number) s.get("runs")).intValue() == 2;
          });

      // allowAll, every 10 s: runs side by side, each its own VM and process.
      create(api, "every10", "\"interval\":\"10s\"", "allowAll", "971004");
      eventually(
          "two runs of every10 running at once",
          Duration.ofSeconds(60),
          () -> running(api, "every10").size() >= 2 && processes("971004") >= 2);
      for (String vm : running(api, "every10")) {
        assertTrue(vm.matches("every10-\\d{8}-\\d{6}-[0-9a-f]{6}"), vm);
      }
      Map<String, Object> paused =
          api.api("POST", "/v1/schedules/every10/pause", "{\"note\":\"enough\"}").map();
      assertEquals(true, paused.get("paused"));
      assertEquals("enough", paused.get("note"));

      String schedules = stack.temporal.webUi() + "/namespaces/default/schedules";
      ui.show(
          schedules,
          "Rota's schedules on the Temporal UI's Schedules page",
          text ->
              text.contains("rota-schedule-every10")
                  && text.contains("rota-schedule-skips")
                  && text.contains("ScheduledVmWorkflow"),
          "schedules");
      ui.show(
          schedules + "/rota-schedule-every10",
          "one schedule's page: its interval, paused with its note, its runs",
          text ->
              text.contains("rota-schedule-every10")
                  && text.contains("enough")
                  && text.contains("ScheduledVmWorkflow"),
          "schedule-every10");

      List<String> left = running(api, "every10");
      assertEquals(204, api.api("DELETE", "/v1/schedules/every10", null).status());
      assertEquals(404, api.api("GET", "/v1/schedules/every10", null).status());
      for (String vm : left) {
        assertEquals("running", api.vm(vm).get("status"), vm + " goes on without its schedule");
      }
    }
  }

  /** Stops the VM; the worker's room is for the next schedule's. */
  private static void stop(RotaClient api, String vm) {
    assertEquals(202, api.api("POST", "/v1/vms/" + vm + "/stop", null).status());
  }

  private static void trigger(RotaClient api, String schedule) {
    RotaClient.Reply triggered = api.api("POST", "/v1/schedules/" + schedule + "/trigger", null);
    assertEquals(200, triggered.status(), triggered.body());
  }

  /** Triggers the schedule's run and waits for its VM's process: the VM's name. */
  private static String triggeredRunning(RotaClient api, String schedule, String sleep) {
    trigger(api, schedule);
    eventually(
        schedule + "'s first run's VM running",
        Duration.ofSeconds(60),
        () -> {
          List<String> now = running(api, schedule);
          return now.size() == 1
              && "running".equals(api.vm(now.get(0)).get("status"))
              && processes(sleep) == 1;
        });
    return running(api, schedule).get(0);
  }

  @SuppressWarnings("unchecked")
  private static List<String> running(RotaClient api, String schedule) {
    return (List<String>) api.api("GET", "/v1/schedules/" + schedule, null).map().get("runningVms");
  }

  private static int processes(String sleep) {
    return Vms.sleeping().getOrDefault(sleep, List.of()).size();
  }
}
