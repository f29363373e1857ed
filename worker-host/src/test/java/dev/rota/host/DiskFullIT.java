package dev.rota.host;

import static dev.rota.testing.Eventually.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rota.testing.Needs;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * A worker whose disk fills up, in production mode: worker w1's agent keeps its data on a 2 MiB
 * tmpfs, which the test fills while VMs run there. The VMs it runs keep running, each its one
 * process, and keep their records; new VMs that land there fail to start saying why ({@code No
 * space left on device}), the worker turns flaky, and they run on w2; once there is room again, w1
 * is ready and takes VMs again. Needs root to mount the tmpfs; skipped otherwise.
 */
class DiskFullIT {
  private static final int FIRST_SLEEP = 985_000;
  private static final int RUNNING = 3;
  private static final int LATE = 3;

  @Test
  void aWorkerWithAFullDiskKeepsItsVmsSendsNewOnesElsewhereSayingWhyAndRecoversWhenThereIsRoom()
      throws Exception {
    Path dir = ProductionStack.folder("disk-full");
    Path data = Files.createDirectories(dir.resolve("agent-w1"));
    int mounted =
        new ProcessBuilder("mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", data.toString())
            .redirectErrorStream(true)
            .start()
            .waitFor();
    Needs.had(
        mounted == 0, "cannot mount a tmpfs here (needs root): the disk-full test is skipped");
    try (ProductionStack stack =
        ProductionStack.start(
            dir,
            1,
            2,
            Map.of(
                "ROTA_SCHEDULER_INTERVAL",
                "1s",
                "ROTA_API_INSECURE_HTTP",
                "true",
                "ROTA_WORKERS_FLAKY_AFTER_TASK_FAILURES",
                "2",
                "ROTA_WORKERS_TASK_FAILURE_WINDOW",
                "20s",
                "ROTA_WORKERS_FLAKY_COOLDOWN",
                "3s"))) {
      RotaClient api = stack.admin(0);
      assertEquals(200, api.api("PATCH", "/v1/workers/w2", "{\"schedulingPaused\":true}").status());
      Map<String, String> sleepOf = new TreeMap<>();
      for (int i = 0; i < RUNNING; i++) {
        sleepOf.put("kept-" + i, String.valueOf(FIRST_SLEEP + i));
        assertEquals(201, Vms.create(api, "kept-" + i, FIRST_SLEEP + i).status());
      }
      eventually(
          "every VM running on w1",
          () ->
              sleepOf.keySet().stream()
                  .allMatch(
                      vm -> {
                        Map<String, Object> row = api.vm(vm);
                        return "running".equals(row.get("status"))
                            && "w1".equals(row.get("worker"));
                      }));
      Map<String, Long> pids = Vms.onlyOneProcessEach(sleepOf);

      Path filler = fill(data);
      assertEquals(
          200, api.api("PATCH", "/v1/workers/w2", "{\"schedulingPaused\":false}").status());
      // Placed where the profile puts them (the fuller worker first), they find no room to start on
      // w1.
      Map<String, String> lateSleepOf = new TreeMap<>();
      for (int i = 0; i < LATE; i++) {
        String vm = "late-" + i;
        lateSleepOf.put(vm, String.valueOf(FIRST_SLEEP + 100 + i));
        assertEquals(
            201,
            api.api(
                    "POST",
                    "/v1/vms",
                    "{\"name\":\""
                        + vm
                        + "\",\"command\":[\"sleep\",\""
                        + (FIRST_SLEEP + 100 + i)
                        + "\"],\"restartPolicy\":\"OnFailure\",\"labels\":{}}")
                .status());
      }
      eventually(
          "every late VM running on w2",
          Duration.ofSeconds(90),
          () ->
              lateSleepOf.keySet().stream()
                  .allMatch(
                      vm -> {
                        Map<String, Object> row = api.vm(vm);
                        return "running".equals(row.get("status"))
                            && "w2".equals(row.get("worker"));
                      }));
      List<String> failures =
          lateSleepOf.keySet().stream()
              .flatMap(vm -> api.items("/v1/vms/" + vm + "/events?limit=1000").stream())
              .filter(e -> "failed".equals(e.get("type")))
              .map(e -> String.valueOf(e.get("message")))
              .toList();
      assertTrue(
          !failures.isEmpty(),
          "the first new VM went to the fuller w1, and its start failed there");
      assertTrue(
          failures.stream().allMatch(m -> m.contains("No space left on device")),
          "each failed start says why: " + failures);

      assertEquals(
          pids,
          Vms.onlyOneProcessEach(sleepOf),
          "the VMs running on w1 run on, each its one process");
      for (String vm : sleepOf.keySet()) {
        Map<String, Object> row = api.vm(vm);
        assertEquals("running", row.get("status"), vm + " keeps its record: " + row);
        assertEquals("w1", row.get("worker"));
        assertEquals(
            0,
            ((Number) row.get("restartCount")).intValue(),
            vm + " never restarted: " + api.eventTypes(vm));
      }
      Vms.onlyOneProcessEach(lateSleepOf);

      Files.delete(filler);
      eventually(
          "w1 ready again once there is room",
          Duration.ofSeconds(90),
          () ->
              api.items("/v1/workers").stream()
                  .anyMatch(w -> "w1".equals(w.get("name")) && "ready".equals(w.get("health"))));
      assertEquals(200, api.api("PATCH", "/v1/workers/w2", "{\"schedulingPaused\":true}").status());
      assertEquals(201, Vms.create(api, "after", FIRST_SLEEP + 200).status());
      eventually(
          "a new VM runs on w1 again",
          Duration.ofSeconds(60),
          () -> {
            Map<String, Object> row = api.vm("after");
            return "running".equals(row.get("status")) && "w1".equals(row.get("worker"));
          });
      String figures =
          String.format(
              "disk full: w1's data on a full 2 MiB tmpfs; %d VMs running there kept, each its one process;%n"
                  + "  %d new VMs all running on w2%s; w1 ready and taking VMs again once there was room%n",
              RUNNING,
              LATE,
              " after "
                  + failures.size()
                  + " start(s) on w1 failed with \"No space left on device\"");
      System.out.print(figures);
      Files.writeString(Path.of("target", "disk-full.txt"), figures);
    } finally {
      new ProcessBuilder("umount", "-l", data.toString()).start().waitFor();
    }
  }

  /** Fills the file system of {@code data} to the last byte. */
  private static Path fill(Path data) throws IOException {
    Path filler = data.resolve("filler");
    byte[] block = new byte[4096];
    try (OutputStream out = Files.newOutputStream(filler)) {
      while (Files.getFileStore(data).getUsableSpace() > 0) {
        out.write(block);
        out.flush();
      }
    } catch (IOException full) {
      // the last block did not fit: full
    }
    return filler;
  }
}
