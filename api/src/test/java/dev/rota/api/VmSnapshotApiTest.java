package dev.rota.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rota.store.VmRepository;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

/**
 * {@code POST /v1/vms/{name}/snapshot}'s refusals, each saying why and leaving the VM as it was;
 * the snapshot itself is the disk's agent's ({@code DiskSnapshotsTest}).
 */
@MicronautTest(transactional = false)
class VmSnapshotApiTest {
  @Inject Http http;
  @Inject VmRepository vms;

  private static final String IMAGE = "{\"image\":\"oci://127.0.0.1:5000/snaps/dev:1\"}";

  private void refused(String vm, String body, int status, String says) {
    long events = http.get("/v1/vms/" + vm + "/events").body().length();
    Http.Reply reply = http.post("/v1/vms/" + vm + "/snapshot", body);
    assertEquals(status, reply.status(), reply.toString());
    assertTrue(reply.isProblem(), reply.toString());
    assertTrue(reply.detail().contains(says), reply.detail());
    if (status != 404) {
      assertEquals(
          events, http.get("/v1/vms/" + vm + "/events").body().length(), "no event: nothing done");
    }
  }

  @Test
  void aSnapshotIsRefusedSayingWhyUntilTheVmHasADiskAtRest() {
    refused("nobody", IMAGE, 404, "nobody");
    assertEquals(201, http.post("/v1/vms", "{\"name\":\"proc\",\"command\":[\"x\"]}").status());
    refused("proc", IMAGE, 409, "keeps no disk to snapshot");
    assertEquals(
        201,
        http.post(
                "/v1/vms",
                "{\"name\":\"snapdev\",\"runtime\":\"qemu\",\"image\":\"file:///d.qcow2\","
                    + "\"isolation\":\"optional\",\"disk\":{\"persistent\":true}}")
            .status());
    refused("snapdev", "{\"image\":\"oci://127.0.0.1:5000/snaps/dev\"}", 400, "image");
    refused("snapdev", "{\"image\":\"https://example.com/d.qcow2\"}", 400, "image");
    refused("snapdev", "{\"image\":\"oci://r/s:1\",\"withMemory\":true}", 400, "withMemory");
    refused("snapdev", "{\"image\":\"oci://r/s:1\",\"memory\":\"yes\"}", 400, "memory");
    refused("snapdev", IMAGE, 409, "has no disk yet");
    long seq = vms.findById("snapdev").orElseThrow().seq();
    assertEquals(1, vms.diskOn("snapdev", seq, "w-gone"));
    refused("snapdev", IMAGE, 409, "stop or suspend it first");
    assertEquals(1, vms.recordStatus("snapdev", seq, "stopped", "stopped by its user"));
    refused("snapdev", WITH_MEMORY, 409, "only a suspended VM's memory can go with its disk");
  }

  private static final String WITH_MEMORY =
      "{\"image\":\"oci://127.0.0.1:5000/snaps/dev:1\",\"memory\":true}";
}
