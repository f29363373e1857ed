package dev.rota.api;

import static dev.rota.testing.Eventually.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rota.store.WorkerRepository;
import dev.rota.store.WorkerRow;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import jakarta.inject.Inject;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** {@code /v1/volumes}, and the VMs that mount them. */
@MicronautTest(transactional = false)
class VolumeApiTest {
  @Inject Http http;
  @Inject WorkerRepository workers;
  @Inject dev.rota.store.VolumeRepository volumes;

  private void qemuWorker(String name) {
    if (workers.findById(name).isEmpty()) {
      workers.save(
          WorkerRow.registered(
              name,
              "http://127.0.0.1:1",
              Map.of("cpu", 4L, "memory", 4096L),
              Map.of(),
              List.of("qemu"),
              null,
              "ready",
              "ready",
              Instant.now()));
    }
  }

  @Test
  void aVolumeIsMountedByOneVmOnItsWorkerAndOutlivesIt() {
    qemuWorker("vw-1");
    Http.Reply made =
        http.post("/v1/volumes", "{\"name\":\"cache\",\"sizeGi\":10,\"worker\":\"vw-1\"}");
    assertEquals(201, made.status(), made.toString());
    assertEquals("cache", made.map().get("name"));
    assertEquals(10, made.map().get("sizeGi"));
    assertEquals("vw-1", made.map().get("worker"));
    assertTrue(made.map().containsKey("vm") && made.map().get("vm") == null);
    assertEquals(409, http.post("/v1/volumes", "{\"name\":\"cache\",\"sizeGi\":1}").status());
    Http.Reply nowhere =
        http.post("/v1/volumes", "{\"name\":\"lost\",\"sizeGi\":1,\"worker\":\"nowhere\"}");
    assertEquals(409, nowhere.status(), "well formed, but of a worker the cluster does not have");
    assertTrue(
        nowhere.detail().startsWith("worker: no worker named nowhere runs the qemu runtime"),
        nowhere.detail());
    assertEquals(404, http.get("/v1/volumes/lost").status());

    Http.Reply vm =
        http.post(
            "/v1/vms",
            "{\"name\":\"builder\",\"runtime\":\"qemu\",\"image\":\"file:///d.qcow2\","
                + "\"isolation\":\"optional\","
                + "\"volumes\":[{\"name\":\"cache\",\"mountPath\":\"/var/cache\"}]}");
    assertEquals(201, vm.status(), vm.toString());
    assertEquals(
        List.of(Map.of("name", "cache", "mountPath", "/var/cache")), vm.map().get("volumes"));
    assertEquals("vw-1", vm.map().get("diskOn"), "the answer says where it will run");
    Map<String, Object> shown = http.get("/v1/vms/builder").map();
    assertEquals(Map.of("persistent", true), shown.get("disk"), "its root disk stays with them");
    assertEquals("vw-1", shown.get("diskOn"), "placed where its volume is");
    assertEquals("builder", http.get("/v1/volumes/cache").map().get("vm"));
    assertEquals(List.of("cache"), http.get("/v1/workers/vw-1").map().get("volumes"));

    Http.Reply taken =
        http.post(
            "/v1/vms",
            "{\"name\":\"thief\",\"runtime\":\"qemu\",\"image\":\"file:///d.qcow2\","
                + "\"volumes\":[{\"name\":\"cache\"}]}");
    assertEquals(409, taken.status(), taken.toString());
    assertTrue(
        taken.detail().contains("volumes[0].name: volume cache is mounted by VM builder"),
        taken.detail());
    assertEquals(404, http.get("/v1/vms/thief").status(), "nothing stored");

    Http.Reply busy = http.delete("/v1/volumes/cache");
    assertEquals(409, busy.status(), busy.toString());
    assertTrue(busy.detail().contains("mounted by VM builder"), busy.detail());

    assertEquals(202, http.delete("/v1/vms/builder").status());
    // Its deletion waits for its disk's worker, here no agent at all, to delete the disk: until
    // that worker is removed.
    workers.deleteById("vw-1");
    eventually("the VM is gone", () -> http.get("/v1/vms/builder").status() == 404);
    Map<String, Object> left = http.get("/v1/volumes/cache").map();
    assertEquals(null, left.get("vm"), "mounted by nothing now");
    assertEquals("vw-1", left.get("worker"), "still where it was");
    assertEquals(204, http.delete("/v1/volumes/cache").status());
    assertEquals(404, http.get("/v1/volumes/cache").status());
  }

  @Test
  void
      aVolumeMadeNowhereGoesWhereItsFirstVmIsPlacedAndVolumesOnTwoWorkersCannotBeMountedTogether() {
    qemuWorker("vw-2");
    qemuWorker("vw-3");
    assertEquals(201, http.post("/v1/volumes", "{\"name\":\"scratch\",\"sizeGi\":1}").status());
    assertEquals(null, http.get("/v1/volumes/scratch").map().get("worker"));
    assertEquals(
        201,
        http.post("/v1/volumes", "{\"name\":\"left\",\"sizeGi\":1,\"worker\":\"vw-2\"}").status());
    assertEquals(
        201,
        http.post("/v1/volumes", "{\"name\":\"right\",\"sizeGi\":1,\"worker\":\"vw-3\"}").status());
    Http.Reply split =
        http.post(
            "/v1/vms",
            "{\"name\":\"split\",\"runtime\":\"qemu\",\"image\":\"file:///d.qcow2\","
                + "\"volumes\":[{\"name\":\"scratch\"},{\"name\":\"left\"},{\"name\":\"right\"}]}");
    assertEquals(409, split.status(), split.toString());
    assertTrue(
        split.detail().startsWith("volumes[2].name: volume right is on worker vw-3"),
        split.detail());
    assertEquals(404, http.get("/v1/vms/split").status());
    assertEquals(
        List.of(),
        volumes.listHeld().stream().filter(v -> v.vm() != null).map(v -> v.name()).toList(),
        "none mounted by a VM that was refused");

    Http.Reply batch =
        http.post(
            "/v1/vms/batch",
            "{\"items\":[{\"name\":\"batched\",\"runtime\":\"qemu\","
                + "\"image\":\"file:///d.qcow2\",\"isolation\":\"optional\","
                + "\"volumes\":[{\"name\":\"left\"}]}]}");
    assertEquals(201, batch.status(), batch.toString());
    assertEquals("vw-2", http.get("/v1/vms/batched").map().get("diskOn"), "where its volume is");
    assertEquals("batched", http.get("/v1/volumes/left").map().get("vm"));
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      textBlock =
          """
          no size         | {"name":"v1"}                                   | sizeGi
          size zero       | {"name":"v1","sizeGi":0}                        | sizeGi
          name too long   | {"name":"abcdefghij-abcdefghij","sizeGi":1}     | name
          upper case      | {"name":"Data","sizeGi":1}                      | name
          unknown field   | {"name":"v1","sizeGi":1,"readOnly":true}        | readOnly
          """)
  void badInputNamesItsFieldAndStoresNothing(String why, String body, String field) {
    long before = volumes.count();
    Http.Reply reply = http.post("/v1/volumes", body);
    assertEquals(400, reply.status(), reply.toString());
    assertTrue(reply.isProblem(), reply.toString());
    assertTrue(reply.detail().contains(field), why + ": " + reply.detail());
    assertEquals(before, volumes.count(), "nothing stored");
  }
}
