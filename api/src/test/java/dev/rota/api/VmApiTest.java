package dev.rota.api;

import static dev.rota.testing.Eventually.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rota.store.VmRepository;
import dev.rota.workflows.RotaSearchAttributes;
import dev.rota.workflows.cluster.ClusterWorkflow;
import dev.rota.workflows.vm.VmWorkflow;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import io.temporal.api.enums.v1.WorkflowExecutionStatus;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowNotFoundException;
import jakarta.inject.Inject;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

@MicronautTest
class VmApiTest {
  @Inject Http http;
  @Inject VmRepository vms;
  @Inject WorkflowClient temporal;

  static String vm(String name) {
    return "{\"name\":\"" + name + "\",\"command\":[\"sleep\",\"3600\"]}";
  }

  private boolean workflowExists(String vmName) {
    return workflowExists(temporal, vmName);
  }

  /** Whether Temporal has a workflow (open or closed) for the VM. */
  static boolean workflowExists(WorkflowClient temporal, String vmName) {
    try {
      temporal.newUntypedWorkflowStub(VmWorkflow.workflowId(vmName)).describe();
      return true;
    } catch (WorkflowNotFoundException e) {
      return false;
    }
  }

  @Test
  void createStoresAPendingVmWithDefaultsIgnoringServerOwnedFieldsAndStartsItsWorkflow() {
    Http.Reply reply =
        http.post(
            "/v1/vms",
            "{\"name\":\"build-42\",\"command\":[\"sleep\",\"3600\"],\"env\":{\"FOO\":\"bar\"},"
                + "\"status\":\"running\",\"worker\":\"mini-1\",\"restartCount\":7,\"exitCode\":3,"
                + "\"createdAt\":\"2000-01-01T00:00:00Z\"}");
    assertEquals(201, reply.status(), reply.toString());
    assertEquals("/v1/vms/build-42", reply.header("Location"), "where it is read");
    Map<String, Object> body = reply.map();
    assertEquals("pending", body.get("status"));
    assertEquals("waiting for the scheduler", body.get("statusMessage"));
    assertNull(body.get("worker"));
    assertEquals(0, body.get("restartCount"));
    assertNull(body.get("exitCode"));
    assertEquals("process", body.get("runtime"));
    assertEquals("Never", body.get("restartPolicy"));
    assertTrue(
        body.containsKey("maxRestarts") && body.get("maxRestarts") == null,
        "no limit unless asked");
    assertTrue(
        body.containsKey("ttlAfterFinished") && body.get("ttlAfterFinished") == null,
        "kept unless asked");
    assertEquals(Map.of("cpu", 1, "memory", 512), body.get("resources"));
    assertEquals(Map.of("FOO", "bar"), body.get("env"));
    assertTrue(
        body.containsKey("scheduledAt") && body.get("scheduledAt") == null,
        "every field is present");
    assertFalse(((String) body.get("createdAt")).startsWith("2000"));

    Map<String, Object> stored = new java.util.HashMap<>(http.get("/v1/vms/build-42").map());
    Map<String, Object> answered = new java.util.HashMap<>(body);
    // The scheduler, woken by the submission, may already have replaced the message with its
    // reason.
    assertTrue(
        List.of("waiting for the scheduler", "no workers are registered")
            .contains(stored.remove("statusMessage")));
    answered.remove("statusMessage");
    assertEquals(answered, stored, "what POST answered is what is stored");
    var row = vms.findById("build-42").orElseThrow();
    assertEquals("pending", row.state().status());
    assertNull(row.state().worker());

    // Answered once stored; its workflow is started after rota.vms.workflow-start-delay.
    eventually("its workflow started", () -> workflowExists("build-42"));
    var description = temporal.newUntypedWorkflowStub(VmWorkflow.workflowId("build-42")).describe();
    assertEquals(
        WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING, description.getStatus());
    assertEquals(
        "pending", description.getTypedSearchAttributes().get(RotaSearchAttributes.VM_STATUS));

    Http.Reply events = http.get("/v1/vms/build-42/events");
    assertEquals(200, events.status());
    assertEquals("created", events.items().get(0).get("type"));
  }

  @ParameterizedTest(name = "{0} -> {1}")
  @CsvSource(
      delimiter = '|',
      textBlock =
          """
          {"cpu":2}                      | {cpu=2, memory=512}
          {"memory":"2Gi"}               | {cpu=1, memory=2048}
          {"memory":"1Ti","gpu":1}       | {cpu=1, gpu=1, memory=1048576}
          {"memory":"768"}               | {cpu=1, memory=768}
          {"gpu":0}                      | {cpu=1, gpu=0, memory=512}
          """)
  void eachResourceHasItsOwnDefaultAndMemoryTakesUnits(String resources, String reserved) {
    String name = "res-" + Integer.toHexString(resources.hashCode());
    Http.Reply reply =
        http.post(
            "/v1/vms",
            "{\"name\":\"" + name + "\",\"command\":[\"x\"],\"resources\":" + resources + "}");
    assertEquals(201, reply.status(), reply.toString());
    Map<?, ?> shown = (Map<?, ?>) reply.map().get("resources");
    assertEquals(reserved, new java.util.TreeMap<Object, Object>(shown).toString());
  }

  @Test
  void createWakesTheScheduler() throws Exception {
    ClusterWorkflow scheduler =
        temporal.newWorkflowStub(ClusterWorkflow.class, ClusterWorkflow.WORKFLOW_ID);
    eventually("the first term", () -> scheduler.lastTerm() != null);
    long before = scheduler.lastTerm().term();
    assertEquals(201, http.post("/v1/vms", vm("wake-me")).status());
    eventually(
        "a woken term", () -> scheduler.lastTerm().term() > before && scheduler.lastTerm().woken());
  }

  @Test
  void aTakenNameIs409() {
    assertEquals(201, http.post("/v1/vms", vm("taken")).status());
    Http.Reply second = http.post("/v1/vms", vm("taken"));
    assertEquals(409, second.status());
    assertTrue(second.isProblem());
    assertTrue(second.detail().contains("'taken'"), second.detail());
  }

  @Test
  void aBatchCreatesEveryVmInOrderEachWithItsWorkflow() {
    Http.Reply reply =
        http.post(
            "/v1/vms/batch",
            "{\"items\":["
                + vm("batch-a")
                + ","
                + "{\"name\":\"batch-b\",\"runtime\":\"synthetic\",\"restartPolicy\":\"OnFailure\"}]}");
    assertEquals(201, reply.status(), reply.toString());
    assertNull(reply.header("Location"), "several VMs have no one place");
    @SuppressWarnings("unchecked")
    List<Map<String, Object>> items = (List<Map<String, Object>>) reply.map().get("items");
    assertEquals(List.of("batch-a", "batch-b"), items.stream().map(i -> i.get("name")).toList());
    assertEquals("pending", items.get(1).get("status"));
    assertEquals("OnFailure", items.get(1).get("restartPolicy"));
    assertEquals("OnFailure", http.get("/v1/vms/batch-b").map().get("restartPolicy"));
    eventually(
        "each VM's workflow started", () -> workflowExists("batch-a") && workflowExists("batch-b"));
    assertTrue(
        vms.findById("batch-a").orElseThrow().seq() < vms.findById("batch-b").orElseThrow().seq(),
        "placed oldest first, in the order asked");
    for (String vm : List.of("batch-a", "batch-b")) {
      Map<String, Object> created = http.get("/v1/vms/" + vm + "/events").items().get(0);
      assertEquals("created", created.get("type"), vm);
      assertEquals("submitted; waiting for the scheduler", created.get("message"), vm);
      assertEquals(http.get("/v1/vms/" + vm).map().get("createdAt"), created.get("time"), vm);
    }
  }

  @Test
  void aBatchsVmMaySuspendAtItsLeasesEndAsASingleVmMay() {
    Http.Reply reply =
        http.post(
            "/v1/vms/batch",
            "{\"items\":[{\"name\":\"batch-box\",\"runtime\":\"qemu\","
                + "\"image\":\"file:///d.qcow2\",\"isolation\":\"optional\","
                + "\"disk\":{\"persistent\":true},\"maxRunDuration\":\"1h\","
                + "\"onExpiry\":\"suspend\"}]}");
    assertEquals(201, reply.status(), "an item is no set's replica: " + reply);
    assertEquals("suspend", http.get("/v1/vms/batch-box").map().get("onExpiry"));
  }

  @Test
  void aBatchWithOneBadItemIsRejectedNamingItAndCreatesNothing() {
    Http.Reply bad =
        http.post("/v1/vms/batch", "{\"items\":[" + vm("whole-a") + ",{\"name\":\"whole-b\"}]}");
    assertEquals(400, bad.status(), bad.toString());
    assertTrue(bad.isProblem());
    assertTrue(bad.detail().contains("items[1].command"), bad.detail());
    Http.Reply twice =
        http.post("/v1/vms/batch", "{\"items\":[" + vm("whole-a") + "," + vm("whole-a") + "]}");
    assertEquals(409, twice.status(), "a name twice in one batch is taken, as by a VM that exists");
    assertTrue(twice.detail().contains("items[1].name"), twice.detail());
    Http.Reply shape =
        http.post(
            "/v1/vms/batch",
            "{\"items\":[" + vm("whole-a") + ",{\"name\":\"Not A Name\",\"command\":[\"x\"]}]}");
    assertEquals(400, shape.status());
    assertTrue(shape.detail().contains("items[1].name"), shape.detail());
    assertEquals(400, http.post("/v1/vms/batch", "{\"items\":[]}").status());
    assertEquals(201, http.post("/v1/vms", vm("whole-taken")).status());
    Http.Reply taken =
        http.post("/v1/vms/batch", "{\"items\":[" + vm("whole-a") + "," + vm("whole-taken") + "]}");
    assertEquals(409, taken.status());
    assertTrue(
        taken.detail().contains("'whole-taken'") && taken.detail().contains("items[1]"),
        taken.detail());
    assertTrue(vms.findById("whole-a").isEmpty(), "all or nothing");
    assertFalse(workflowExists("whole-a"));
  }

  @Test
  void manyRequestsRacingForOneNameLetExactlyOneWin() throws Exception {
    int racers = 16;
    ExecutorService pool = Executors.newFixedThreadPool(racers);
    try {
      List<Callable<Integer>> calls = new ArrayList<>();
      for (int i = 0; i < racers; i++) {
        calls.add(() -> http.post("/v1/vms", vm("contested")).status());
      }
      List<Integer> statuses = new ArrayList<>();
      for (Future<Integer> f : pool.invokeAll(calls)) {
        statuses.add(f.get());
      }
      assertEquals(1, statuses.stream().filter(s -> s == 201).count(), statuses.toString());
      assertEquals(
          racers - 1, statuses.stream().filter(s -> s == 409).count(), statuses.toString());
      assertTrue(vms.findById("contested").isPresent());
      eventually("the winner's workflow started", () -> workflowExists("contested"));
    } finally {
      pool.shutdownNow();
    }
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      textBlock =
          """
          bad name           | {"name":"Bad_Name","command":["x"]}                                  | 400 | name
          name too long      | {"name":"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa","command":["x"]} | 400 | name
          missing name       | {"command":["x"]}                                                     | 400 | name
          negative resource  | {"name":"neg","command":["x"],"resources":{"cpu":-1}}                 | 400 | resources.cpu
          no cpu             | {"name":"cpu0","command":["x"],"resources":{"cpu":0}}                 | 400 | resources.cpu: must be at least 1
          no memory          | {"name":"mem0","command":["x"],"resources":{"memory":0}}              | 400 | resources.memory: must be at least 1 MiB
          no memory in Mi    | {"name":"mem0mi","command":["x"],"resources":{"memory":"0Mi"}}       | 400 | resources.memory
          no memory in Gi    | {"name":"mem0gi","command":["x"],"resources":{"memory":"00Gi"}}      | 400 | resources.memory
          fractional         | {"name":"frac","command":["x"],"resources":{"cpu":1.5}}               | 400 | resources.cpu
          resource as text   | {"name":"txt","command":["x"],"resources":{"cpu":"lots"}}             | 400 | resources.cpu
          unknown policy     | {"name":"pol","command":["x"],"restartPolicy":"Sometimes"}            | 400 | restartPolicy
          negative maxRestarts | {"name":"mr","command":["x"],"maxRestarts":-1}                      | 400 | maxRestarts
          bad regexp         | {"name":"cr1","command":["x"],"constraints":[{"label":"name","operator":"regexp","values":["ci-[0-"]}]} | 400 | constraints[0].values: is not a regular expression
          unknown operator   | {"name":"cr2","command":["x"],"constraints":[{"label":"os","operator":"like","values":["l"]}]} | 400 | constraints.0.operator: must be one of
          values for exists  | {"name":"cr3","command":["x"],"constraints":[{"label":"os","operator":"=","values":["a"]},{"label":"gpu","operator":"exists","values":["y"]}]} | 400 | constraints[1].values: takes none with exists
          bad version        | {"name":"cr4","command":["x"],"constraints":[{"label":"kernel","operator":"version","values":["six"]}]} | 400 | constraints[0].values: is not a list of version comparisons
          unknown constraint field | {"name":"cr5","command":["x"],"constraints":[{"label":"os","operator":"exists","value":"x"}]} | 400 | value
          bad pool name      | {"name":"pl1","command":["x"],"workerPool":"GPU boxes"}              | 400 | workerPool: must be a worker pool's name
          pool as constraint | {"name":"pl2","command":["x"],"constraints":[{"label":"rota.dev/worker-pool","operator":"=","values":["gpu"]}]} | 400 | constraints[0].label: is the worker pool's label: give workerPool instead
          taint as constraint | {"name":"tn1","command":["x"],"constraints":[{"label":"taint.rota.dev/gpu","operator":"exists"}]} | 400 | constraints[0].label: carries a worker's taint: give tolerations instead
          unknown effect     | {"name":"tn2","command":["x"],"tolerations":[{"key":"gpu","effect":"NoExecute"}]} | 400 | tolerations.0.effect: must be "NoSchedule" or "PreferNoSchedule"
          unknown toleration operator | {"name":"tn3","command":["x"],"tolerations":[{"key":"gpu","operator":"In"}]} | 400 | tolerations.0.operator: must be "Equal" or "Exists"
          value with Exists  | {"name":"tn4","command":["x"],"tolerations":[{"key":"gpu"},{"key":"os","operator":"Exists","value":"linux"}]} | 400 | tolerations[1].value: takes none with Exists
          Equal without key  | {"name":"tn5","command":["x"],"tolerations":[{"value":"linux"}]} | 400 | tolerations[0].key: is needed with Equal
          bad toleration key | {"name":"tn6","command":["x"],"tolerations":[{"key":"a b","operator":"Exists"}]} | 400 | tolerations.0.key: must be a label's name
          unknown toleration field | {"name":"tn7","command":["x"],"tolerations":[{"key":"gpu","effects":"NoSchedule"}]} | 400 | effects
          zero weight        | {"name":"af1","command":["x"],"affinities":[{"label":"zone","operator":"=","values":["a"],"weight":0}]} | 400 | affinities[0].weight: must be from -100 to 100, and not 0
          weight above 100   | {"name":"af2","command":["x"],"affinities":[{"label":"zone","operator":"=","values":["a"],"weight":101}]} | 400 | affinities.0.weight: must be less than or equal to 100
          no weight          | {"name":"af3","command":["x"],"affinities":[{"label":"zone","operator":"=","values":["a"]}]} | 400 | affinities.0.weight
          affinity bad regexp | {"name":"af4","command":["x"],"affinities":[{"label":"zone","operator":"regexp","values":["[a"],"weight":5}]} | 400 | affinities[0].values: is not a regular expression
          priority above 100 | {"name":"pr1","command":["x"],"priority":101}                        | 400 | priority: must be less than or equal to 100
          negative priority  | {"name":"pr2","command":["x"],"priority":-1}                         | 400 | priority: must be greater than or equal to 0
          fractional priority | {"name":"pr3","command":["x"],"priority":50.5}                      | 400 | priority
          priority as a word | {"name":"pr4","command":["x"],"priority":"high"}                     | 400 | priority
          window alone       | {"name":"win","command":["x"],"restartWindow":"1m"}                   | 400 | restartWindow
          zero window        | {"name":"win0","command":["x"],"maxRestarts":3,"restartWindow":"0s"} | 400 | restartWindow
          negative ttl       | {"name":"ttl","command":["x"],"ttlAfterFinished":"-1s"}               | 400 | ttlAfterFinished
          ttl in seconds     | {"name":"ttl2","command":["x"],"ttlAfterFinished":3600}               | 400 | ttlAfterFinished
          ttl as ISO         | {"name":"ttl3","command":["x"],"ttlAfterFinished":"PT1H"}             | 400 | ttlAfterFinished
          unknown onExpiry   | {"name":"l2","command":["x"],"maxRunDuration":"1h","onExpiry":"pause"} | 400 | onExpiry: must be one of "stop", "delete", "suspend"
          suspend a process  | {"name":"l5","command":["x"],"maxRunDuration":"1h","onExpiry":"suspend"} | 400 | onExpiry: suspend is for a VM that can be suspended: only qemu VMs can be suspended
          no run at all      | {"name":"l3","command":["x"],"maxRunDuration":"0s"}                   | 400 | maxRunDuration
          lease in seconds   | {"name":"l4","command":["x"],"maxRunDuration":3600}                   | 400 | maxRunDuration
          disk of a process  | {"name":"k1","command":["x"],"disk":{"persistent":true}}              | 400 | disk: is a qemu VM's root disk
          disk without image | {"name":"k2","runtime":"qemu","guest":{"kernel":"file:///k"},"disk":{"persistent":true}} | 400 | disk.persistent: keeps a qemu VM's root disk, an overlay of its image
          disk replaced      | {"name":"k3","runtime":"qemu","image":"file:///d.raw","disk":{"persistent":true},"disconnect":{"replace":true}} | 400 | disconnect.replace: a VM with a persistent disk
          live process       | {"name":"m1","command":["x"],"migration":"live"}                     | 400 | migration: live carries a running qemu VM's memory and its persistent disk to another worker: a process VM is restarted where it goes
          live ephemeral     | {"name":"m2","runtime":"qemu","image":"file:///d.raw","migration":"live"} | 400 | migration: live carries a running qemu VM's memory and its persistent disk to another worker: give disk.persistent true
          unknown migration  | {"name":"m3","command":["x"],"migration":"cold"}                     | 400 | migration: must be one of "live", "restart"
          no disk size       | {"name":"k4","runtime":"qemu","image":"file:///d.raw","disk":{"sizeGi":0}} | 400 | disk.sizeGi
          unknown disk field | {"name":"k5","runtime":"qemu","image":"file:///d.raw","disk":{"persist":true}} | 400 | persist
          volume of a process | {"name":"v1","command":["x"],"volumes":[{"name":"data"}]}          | 400 | volumes: are a qemu VM's disks
          volume without image | {"name":"v2","runtime":"qemu","guest":{"kernel":"file:///k"},"volumes":[{"name":"data"}]} | 400 | volumes: are kept beside a qemu VM's persistent root disk
          volume, ephemeral root | {"name":"v3","runtime":"qemu","image":"file:///d.raw","disk":{"persistent":false},"volumes":[{"name":"data"}]} | 400 | disk.persistent: a VM that mounts volumes stays on their worker
          volume twice       | {"name":"v4","runtime":"qemu","image":"file:///d.raw","volumes":[{"name":"a"},{"name":"a"}]} | 400 | volumes[1].name: "a" is mounted twice
          no such volume     | {"name":"v5","runtime":"qemu","image":"file:///d.raw","volumes":[{"name":"nowhere"}]} | 409 | volumes[0].name: no volume named nowhere
          volume name long   | {"name":"v6","runtime":"qemu","image":"file:///d.raw","volumes":[{"name":"aaaaaaaaaaaaaaaaaaaaa"}]} | 400 | at most 20 characters
          relative mount     | {"name":"v7","runtime":"qemu","image":"file:///d.raw","volumes":[{"name":"a","mountPath":"data"}]} | 400 | mountPath
          unknown volume field | {"name":"v8","runtime":"qemu","image":"file:///d.raw","volumes":[{"name":"a","readOnly":true}]} | 400 | readOnly
          no command         | {"name":"nocmd"}                                                      | 400 | command
          command as text    | {"name":"cmdtxt","command":"sleep 5"}                                 | 400 | command
          env value list     | {"name":"envl","command":["x"],"env":{"A":[1]}}                       | 400 | env.A
          qemu without image | {"name":"q1","runtime":"qemu"}                                        | 400 | image
          qemu with command  | {"name":"q2","runtime":"qemu","image":"https://a.example/d.qcow2","command":["x"]} | 400 | command
          qemu image address | {"name":"q3","runtime":"qemu","image":"ghcr.io/acme/a:1"}             | 400 | image
          qemu bad pin       | {"name":"q4","runtime":"qemu","image":"https://a.example/d.qcow2@sha256:abc"} | 400 | image
          oci upper repo     | {"name":"q10","runtime":"qemu","image":"oci://ghcr.io/Acme/a:1"}     | 400 | image: must be an https://, http:// or file:// address (optionally pinned with @sha256:<64 hex digits>), or an image in an OCI registry, oci://registry/repository[:tag][@sha256:<64 hex digits>]
          oci short digest   | {"name":"q11","runtime":"qemu","image":"oci://ghcr.io/acme/a@sha256:abc"} | 400 | image
          not an ssh key     | {"name":"q13","runtime":"qemu","image":"file:///d.raw","guest":{"sshKeys":["hunter2"]}} | 400 | guest.sshKeys.0: must be an OpenSSH public key
          ssh key two lines  | {"name":"q14","runtime":"qemu","image":"file:///d.raw","guest":{"sshKeys":["ssh-ed25519 AAAA a\\nssh-rsa BBBB b"]}} | 400 | sshKeys
          oci kernel         | {"name":"q12","runtime":"qemu","guest":{"kernel":"oci://ghcr.io/acme/k:1"}} | 400 | guest.kernel
          initrd alone       | {"name":"q5","runtime":"qemu","image":"file:///d.raw","guest":{"initrd":"file:///i"}} | 400 | guest.initrd
          kernel args alone  | {"name":"q6","runtime":"qemu","image":"file:///d.raw","guest":{"kernelArgs":"quiet"}} | 400 | guest.kernelArgs
          kernel address     | {"name":"q7","runtime":"qemu","guest":{"kernel":"/boot/vmlinuz"}}     | 400 | guest.kernel
          guest for process  | {"name":"q8","command":["x"],"guest":{"userData":"#cloud-config"}}    | 400 | guest
          unknown guest field | {"name":"q9","runtime":"qemu","image":"file:///d.raw","guest":{"cloudInit":"x"}} | 400 | cloudInit
          stop of a replaced VM | {"name":"d1","command":["x"],"disconnect":{"stopAfter":"1m"}}  | 400 | disconnect.stopAfter
          stop after nothing | {"name":"d2","command":["x"],"disconnect":{"replace":false,"stopAfter":"0s"}} | 400 | disconnect.stopAfter
          unknown disconnect field | {"name":"d3","command":["x"],"disconnect":{"replce":false}}      | 400 | replce
          replace not a boolean | {"name":"d4","command":["x"],"disconnect":{"replace":"no"}}        | 400 | replace
          port name twice    | {"name":"p1","command":["x"],"ports":[{"name":"web","port":80},{"name":"web","port":81}]} | 400 | ports[1].name
          guest port twice   | {"name":"p2","command":["x"],"ports":[{"name":"a","port":80},{"name":"b","port":80}]} | 400 | ports[1].port
          port zero          | {"name":"p3","command":["x"],"ports":[{"name":"web","port":0}]}     | 400 | port
          port name upper    | {"name":"p4","command":["x"],"ports":[{"name":"Web","port":80}]}    | 400 | must be a port name
          port name long     | {"name":"p5","command":["x"],"ports":[{"name":"a-very-long-name","port":80}]} | 400 | must be a port name
          port without port  | {"name":"p6","command":["x"],"ports":[{"name":"web"}]}              | 400 | port
          unknown port field | {"name":"p7","command":["x"],"ports":[{"name":"web","port":80,"hostPort":8080}]} | 400 | hostPort
          unknown egress     | {"name":"n1","runtime":"qemu","image":"file:///d.raw","network":{"egress":"lan"}} | 400 | network.egress: must be one of "none", "internet", "allow"
          unknown network field | {"name":"n2","runtime":"qemu","image":"file:///d.raw","network":{"egres":"none"}} | 400 | egres
          malformed CIDR     | {"name":"n3","runtime":"qemu","image":"file:///d.raw","network":{"allow":["10.0.0.0/33"]}} | 400 | network.allow[0]: "10.0.0.0/33" has a prefix length that is not 0 to 32
          not a host name    | {"name":"n4","runtime":"qemu","image":"file:///d.raw","network":{"allow":["203.0.113.7","exa mple"]}} | 400 | network.allow[1]
          allow without list | {"name":"n5","runtime":"qemu","image":"file:///d.raw","network":{"egress":"allow"}} | 400 | network.allow: is required with egress "allow"
          list without allow | {"name":"n6","runtime":"qemu","image":"file:///d.raw","network":{"egress":"none","allow":["203.0.113.7"]}} | 400 | network.allow: is only for egress "allow"
          network of a process | {"name":"n7","command":["x"],"network":{"egress":"none"}}       | 400 | network: is a qemu guest's network
          unknown isolation  | {"name":"n8","runtime":"qemu","image":"file:///d.raw","isolation":"strict"} | 400 | isolation
          isolation of a process | {"name":"n9","command":["x"],"isolation":"optional"}            | 400 | isolation: is whether a qemu guest must run confined
          check of nothing   | {"name":"c1","command":["x"],"readiness":{"period":"5s"}}           | 400 | readiness: must say one thing to check
          two checks at once | {"name":"c2","command":["x"],"ports":[{"name":"web","port":80}],"readiness":{"tcp":{"port":"web"},"exec":{"command":["true"]}}} | 400 | readiness: must say one thing to check: guestAgent (true), tcp, http or exec; it says 2 of them
          check on no port   | {"name":"c3","command":["x"],"liveness":{"tcp":{"port":"ssh"}}}     | 400 | liveness.tcp.port: "ssh" is not a port the VM names
          http on another port | {"name":"c4","command":["x"],"ports":[{"name":"web","port":80}],"readiness":{"http":{"port":"api"}}} | 400 | readiness.http.port: "api" is not a port the VM names, which are [web]
          guest agent of a process | {"name":"c5","command":["x"],"readiness":{"guestAgent":true}}  | 400 | readiness.guestAgent
          unknown check field | {"name":"c6","command":["x"],"readiness":{"exec":{"command":["true"]},"perod":"5s"}} | 400 | perod
          zero period        | {"name":"c7","command":["x"],"readiness":{"exec":{"command":["true"]},"period":"0s"}} | 400 | readiness.period
          zero threshold     | {"name":"c8","command":["x"],"liveness":{"exec":{"command":["true"]},"failureThreshold":0}} | 400 | liveness.failureThreshold
          relative http path | {"name":"c9","command":["x"],"ports":[{"name":"web","port":80}],"readiness":{"http":{"port":"web","path":"healthz"}}} | 400 | readiness.http.path
          empty exec         | {"name":"c10","command":["x"],"liveness":{"exec":{"command":[]}}}    | 400 | liveness.exec.command
          misspelt field     | {"name":"typo","command":["x"],"resouces":{"cpu":1}}                 | 400 | resouces: is not a field of this request; did you mean resources?
          unknown field      | {"name":"unk","command":["x"],"urgency":5}                            | 400 | urgency
          memory decimal unit | {"name":"memg","command":["x"],"resources":{"memory":"2G"}}         | 400 | resources.memory: must be MiB as a whole number, or a quantity with a binary unit
          memory in KiB      | {"name":"memk","command":["x"],"resources":{"memory":"2048Ki"}}       | 400 | resources.memory: must be MiB as a whole number
          memory too large   | {"name":"memt","command":["x"],"resources":{"memory":"9999999999999Ti"}} | 400 | resources.memory
          malformed JSON     | {"name": "mal",                                                       | 400 | JSON
          not an object      | [1,2]                                                                 | 400 | object
          """)
  void rejectedRequestsAreProblemsNamingTheFieldAndLeaveNothingBehind(
      String why, String body, int status, String field) {
    long before = vms.count();
    Http.Reply reply = http.post("/v1/vms", body);
    assertEquals(status, reply.status(), reply.toString());
    assertTrue(reply.isProblem(), reply.toString());
    assertEquals(status, ((Number) reply.map().get("status")).intValue());
    assertTrue(reply.map().get("title") instanceof String);
    assertTrue(reply.detail().contains(field), why + ": " + reply.detail());
    assertEquals(before, vms.count(), "no row");
    for (String name :
        List.of(
            "neg", "frac", "txt", "pol", "mr", "win", "win0", "nocmd", "cmdtxt", "envl", "mal",
            "typo", "unk", "memg", "memk", "memt", "q1", "q2", "q9", "l2", "k1", "k2", "k3", "k4",
            "k5", "cr1", "cr2", "cr3", "cr4", "cr5", "pr1", "pr2", "pl1", "pl2")) {
      assertFalse(workflowExists(name), "no workflow for " + name);
    }
  }

  @Test
  void aQemuVmsDiskMayBeAnImageInAnOciRegistry() {
    for (String image :
        List.of(
            "oci://ghcr.io/acme/vms/debian:12",
            "oci://127.0.0.1:5000/rota/guest@sha256:" + "b".repeat(64),
            "oci://registry.example/a")) {
      String name = "oci-" + Math.abs(image.hashCode() % 1000);
      Http.Reply created =
          http.post(
              "/v1/vms",
              "{\"name\":\"" + name + "\",\"runtime\":\"qemu\",\"image\":\"" + image + "\"}");
      assertEquals(201, created.status(), created.toString());
      assertEquals(image, http.get("/v1/vms/" + name).map().get("image"));
    }
  }

  @Test
  void aQemuVmKeepsItsGuestAsGivenAndShowsIt() {
    String body =
        "{\"name\":\"web\",\"runtime\":\"qemu\",\"image\":\"https://a.example/d.qcow2@sha256:"
            + "a".repeat(64)
            + "\","
            + "\"resources\":{\"cpu\":2,\"memory\":2048},\"guest\":{\"kernel\":\"file:///k\",\"kernelArgs\":\"quiet\","
            + "\"userData\":\"#cloud-config\\nssh_authorized_keys: [x]\\n\","
            + "\"sshKeys\":[\"ssh-ed25519 AAAAC3NzaC1lZDI1NTE5 me@laptop\"],"
            + "\"startupScript\":\"#!/bin/sh\\necho up\\n\"}}";
    Http.Reply created = http.post("/v1/vms", body);
    assertEquals(201, created.status(), created.toString());
    java.util.Map<String, Object> guest =
        new java.util.HashMap<>(
            (java.util.Map<String, Object>) http.get("/v1/vms/web").map().get("guest"));
    guest.values().removeIf(java.util.Objects::isNull);
    assertEquals(
        java.util.Map.of(
            "kernel",
            "file:///k",
            "kernelArgs",
            "quiet",
            "userData",
            "#cloud-config\nssh_authorized_keys: [x]\n",
            "sshKeys",
            List.of("ssh-ed25519 AAAAC3NzaC1lZDI1NTE5 me@laptop"),
            "startupScript",
            "#!/bin/sh\necho up\n"),
        guest);
    assertEquals(
        List.of("ssh-ed25519 AAAAC3NzaC1lZDI1NTE5 me@laptop"),
        vms.findById("web").orElseThrow().spec().guest().sshKeys(),
        "stored");
    assertEquals(
        java.util.Map.of(
            "kernel",
            "file:///k",
            "kernelArgs",
            "quiet",
            "userData",
            "#cloud-config\nssh_authorized_keys: [x]\n"),
        java.util.Map.of(
            "kernel",
            vms.findById("web").orElseThrow().spec().guest().kernel(),
            "kernelArgs",
            vms.findById("web").orElseThrow().spec().guest().kernelArgs(),
            "userData",
            vms.findById("web").orElseThrow().spec().guest().userData()),
        "stored");
  }

  @Test
  void aVmMayKeepThroughADisconnectAndSaysSo() {
    Http.Reply created =
        http.post(
            "/v1/vms",
            "{\"name\":\"edge\",\"command\":[\"sleep\",\"60\"],\"disconnect\":{\"replace\":false,\"stopAfter\":\"10m\"}}");
    assertEquals(201, created.status(), created.toString());
    assertEquals(
        java.util.Map.of("replace", false, "stopAfter", "10m"),
        http.get("/v1/vms/edge").map().get("disconnect"));
    assertEquals(
        new dev.rota.agentapi.Disconnect(false, 600),
        vms.findById("edge").orElseThrow().spec().disconnect(),
        "stored");

    assertEquals(
        201,
        http.post(
                "/v1/vms",
                "{\"name\":\"usual\",\"command\":[\"x\"],\"disconnect\":{\"replace\":true}}")
            .status());
    assertEquals(
        null, http.get("/v1/vms/usual").map().get("disconnect"), "the default says nothing");
  }

  @Test
  void aVmNamesItsPortsAndShowsNoEndpointsUntilItRuns() {
    Http.Reply created =
        http.post(
            "/v1/vms",
            "{\"name\":\"served\",\"command\":[\"x\"],"
                + "\"ports\":[{\"name\":\"ssh\",\"port\":22},{\"name\":\"web\",\"port\":8080}]}");
    assertEquals(201, created.status(), created.toString());
    java.util.Map<String, Object> vm = http.get("/v1/vms/served").map();
    assertEquals(
        java.util.List.of(
            java.util.Map.of("name", "ssh", "port", 22),
            java.util.Map.of("name", "web", "port", 8080)),
        vm.get("ports"));
    assertEquals(java.util.List.of(), vm.get("endpoints"), "pending: reached nowhere yet");
    assertEquals(
        java.util.List.of(
            new dev.rota.agentapi.PortSpec("ssh", 22), new dev.rota.agentapi.PortSpec("web", 8080)),
        vms.findById("served").orElseThrow().spec().ports(),
        "stored");
  }

  @Test
  void aQemuVmShowsItsNetworkAndRequiresIsolationUnlessItSaysOtherwise() {
    String guest = "\"runtime\":\"qemu\",\"image\":\"file:///d.raw\"";
    assertEquals(201, http.post("/v1/vms", "{\"name\":\"held\"," + guest + "}").status());
    java.util.Map<String, Object> held = http.get("/v1/vms/held").map();
    assertEquals(java.util.Map.of("egress", "internet"), held.get("network"), "the default");
    assertEquals("required", held.get("isolation"));
    assertEquals(
        java.util.Map.of("rota.dev/guest-isolation", "confined"),
        held.get("labels"),
        "placed only where guests are confined");
    Http.Reply loose =
        http.post(
            "/v1/vms",
            "{\"name\":\"loose\","
                + guest
                + ",\"isolation\":\"optional\",\"network\":{\"allow\":[\"2001:DB8::1\",\"Example.org\"]}}");
    assertEquals(201, loose.status(), loose.toString());
    java.util.Map<String, Object> shown = http.get("/v1/vms/loose").map();
    assertEquals(
        java.util.Map.of("egress", "allow", "allow", List.of("2001:db8::1/128", "example.org")),
        shown.get("network"),
        "a list alone means allow, each entry as kept");
    assertEquals("optional", shown.get("isolation"));
    assertEquals(java.util.Map.of(), shown.get("labels"));
    assertEquals(
        new dev.rota.agentapi.NetworkSpec("allow", List.of("2001:db8::1/128", "example.org")),
        vms.findById("loose").orElseThrow().spec().network(),
        "stored");
    java.util.Map<String, Object> process =
        http.get("/v1/vms/" + createdProcess("plain-process")).map();
    assertEquals(null, process.get("network"));
    assertEquals(null, process.get("isolation"));
  }

  @Test
  void aVmsChecksAreShownWithTheirDefaultsAndStored() {
    Http.Reply created =
        http.post(
            "/v1/vms",
            "{\"name\":\"checked\",\"command\":[\"x\"],\"ports\":[{\"name\":\"web\",\"port\":80}],"
                + "\"readiness\":{\"http\":{\"port\":\"web\"},\"period\":\"2s\"},"
                + "\"liveness\":{\"exec\":{\"command\":[\"test\",\"-f\",\"alive\"]},"
                + "\"initialDelay\":\"1m\",\"failureThreshold\":5}}");
    assertEquals(201, created.status(), created.toString());
    java.util.Map<String, Object> vm = http.get("/v1/vms/checked").map();
    assertEquals(
        java.util.Map.of(
            "http",
            java.util.Map.of("port", "web", "path", "/", "status", 200),
            "initialDelay",
            "0s",
            "period",
            "2s",
            "timeout",
            "1s",
            "failureThreshold",
            3),
        vm.get("readiness"));
    assertEquals(
        java.util.Map.of(
            "exec",
            java.util.Map.of("command", List.of("test", "-f", "alive")),
            "initialDelay",
            "1m",
            "period",
            "10s",
            "timeout",
            "1s",
            "failureThreshold",
            5),
        vm.get("liveness"));
    assertEquals(
        new dev.rota.agentapi.Checks(
            new dev.rota.agentapi.CheckSpec(
                null,
                null,
                new dev.rota.agentapi.CheckSpec.HttpCheck("web", "/", 200),
                null,
                0,
                2,
                1,
                3),
            new dev.rota.agentapi.CheckSpec(
                null, null, null, List.of("test", "-f", "alive"), 60, 10, 1, 5)),
        vms.findById("checked").orElseThrow().spec().checks(),
        "stored");
    assertEquals(null, http.get("/v1/vms/" + createdProcess("unchecked")).map().get("readiness"));
  }

  private String createdProcess(String name) {
    assertEquals(201, http.post("/v1/vms", vm(name)).status());
    return name;
  }

  @Test
  void aBodyOverOneMebibyteIs413AndStoresNothing() {
    long before = vms.count();
    String big = "{\"name\":\"big\",\"command\":[\"" + "a".repeat(2 * 1024 * 1024) + "\"]}";
    Http.Reply reply = http.post("/v1/vms", big);
    assertEquals(413, reply.status());
    assertTrue(reply.isProblem(), reply.toString());
    assertEquals(before, vms.count());
    assertFalse(workflowExists("big"));
  }

  @Test
  void listsPageInSubmissionOrderAndStayStableWhileVmsAreAdded() {
    for (int i = 0; i < 5; i++) {
      assertEquals(201, http.post("/v1/vms", vm("page-" + i)).status());
    }
    List<String> seen = new ArrayList<>();
    String cursor = null;
    int pages = 0;
    do {
      Http.Reply reply = http.get("/v1/vms?limit=2" + (cursor == null ? "" : "&cursor=" + cursor));
      assertEquals(200, reply.status(), reply.toString());
      reply.items().forEach(item -> seen.add((String) item.get("name")));
      cursor = (String) reply.map().get("nextCursor");
      if (pages++ == 0) {
        // A VM submitted mid-way lands after everything already listed, so nothing repeats or
        // skips.
        assertEquals(201, http.post("/v1/vms", vm("page-late")).status());
      }
    } while (cursor != null);
    List<String> pageVms = seen.stream().filter(n -> n.startsWith("page-")).toList();
    assertEquals(List.of("page-0", "page-1", "page-2", "page-3", "page-4", "page-late"), pageVms);
    assertEquals(seen.size(), new HashSet<>(seen).size(), "no VM twice: " + seen);
  }

  @Test
  void listsFilterByStatusAndWorker() throws Exception {
    assertEquals(201, http.post("/v1/vms", vm("filter-a")).status());
    assertEquals(201, http.post("/v1/vms", vm("filter-b")).status());
    assertEquals(202, http.post("/v1/vms/filter-b/stop", null).status());
    Set<String> stopped = names(http.get("/v1/vms?status=stopped&limit=1000"));
    assertTrue(stopped.contains("filter-b"));
    assertFalse(stopped.contains("filter-a"));
    assertTrue(names(http.get("/v1/vms?worker=mini-9")).isEmpty(), "no VM is on a worker yet");
  }

  @Test
  void aLabelSelectorKeepsTheVmsAskingForEveryPairAndStillPages() {
    for (int i = 0; i < 5; i++) {
      String labels = i % 2 == 0 ? "{\"zone\":\"sel\",\"disk\":\"ssd\"}" : "{\"zone\":\"sel\"}";
      assertEquals(
          201,
          http.post(
                  "/v1/vms",
                  "{\"name\":\"sel-"
                      + i
                      + "\",\"command\":[\"sleep\",\"1\"],\"labels\":"
                      + labels
                      + "}")
              .status());
    }
    List<String> seen = new ArrayList<>();
    String cursor = null;
    do {
      Http.Reply reply =
          http.get(
              "/v1/vms?labelSelector=zone%3Dsel%2Cdisk%3Dssd&limit=2"
                  + (cursor == null ? "" : "&cursor=" + cursor));
      assertEquals(200, reply.status(), reply.toString());
      assertTrue(reply.items().size() <= 2);
      reply.items().forEach(item -> seen.add((String) item.get("name")));
      cursor = (String) reply.map().get("nextCursor");
    } while (cursor != null);
    assertEquals(List.of("sel-0", "sel-2", "sel-4"), seen, "full pages, in order, each once");
    assertEquals(5, names(http.get("/v1/vms?labelSelector=zone%3Dsel")).size());

    assertEquals(200, http.get("/v1/vms?labelSelector=").status(), "empty: no selector");
    assertEquals(400, http.get("/v1/vms?labelSelector=z%C3%B8ne%3Da").status(), "not a label key");
    Http.Reply bad = http.get("/v1/vms?labelSelector=zone");
    assertEquals(400, bad.status());
    assertTrue(bad.toString().contains("labelSelector"), bad.toString());
    assertEquals(400, http.get("/v1/vms?watch=true&labelSelector=zone%3Dsel").status());
  }

  private static Set<String> names(Http.Reply reply) {
    assertEquals(200, reply.status(), reply.toString());
    Set<String> names = new HashSet<>();
    reply.items().forEach(i -> names.add((String) i.get("name")));
    return names;
  }

  @ParameterizedTest
  @CsvSource({
    "limit=0, limit",
    "limit=1001, limit",
    "limit=abc, limit",
    "cursor=zzz, cursor",
    "cursor=-1, cursor",
    "status=sleeping, status"
  })
  void badListParametersAre400NamingThem(String query, String field) {
    Http.Reply reply = http.get("/v1/vms?" + query);
    assertEquals(400, reply.status(), reply.toString());
    assertTrue(reply.isProblem());
    assertTrue(reply.detail().contains(field), reply.detail());
  }

  @Test
  void unknownVmsAre404() {
    for (Http.Reply reply :
        List.of(
            http.get("/v1/vms/ghost"),
            http.get("/v1/vms/ghost/events"),
            http.post("/v1/vms/ghost/stop", null),
            http.post("/v1/vms/ghost/suspend", null),
            http.put("/v1/vms/ghost/lease", "{\"extendBy\":\"1h\"}"),
            http.delete("/v1/vms/ghost"))) {
      assertEquals(404, reply.status(), reply.toString());
      assertTrue(reply.isProblem());
      assertTrue(reply.detail().contains("'ghost'"), reply.detail());
    }
  }

  @Test
  void userActionsFollowTheWorkflowsDecisionAndRefusalsChangeNothing() {
    assertEquals(201, http.post("/v1/vms", vm("acts")).status());
    assertEquals(
        409, http.post("/v1/vms/acts/start", null).status(), "a pending VM cannot be started");
    assertEquals(409, http.post("/v1/vms/acts/restart", null).status(), "nor restarted");
    Http.Reply suspend = http.post("/v1/vms/acts/suspend", null);
    assertEquals(409, suspend.status(), "nor a process VM suspended");
    assertTrue(suspend.detail().contains("only qemu VMs can be suspended"), suspend.detail());
    Http.Reply pause = http.post("/v1/vms/acts/suspend?inPlace=true", null);
    assertEquals(409, pause.status(), "nor paused");
    assertTrue(pause.detail().contains("only qemu VMs can be paused"), pause.detail());
    assertEquals("pending", http.get("/v1/vms/acts").map().get("status"));

    Http.Reply stop = http.post("/v1/vms/acts/stop", null);
    assertEquals(202, stop.status(), stop.toString());
    assertEquals("stopped", stop.map().get("status"));
    var workflow = temporal.newUntypedWorkflowStub(VmWorkflow.workflowId("acts"));
    workflow.getResult(Void.class);
    String stoppedRun = workflow.describe().getExecution().getRunId();
    assertEquals(
        WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_COMPLETED,
        workflow.describe().getStatus(),
        "the run ended with the VM");
    Http.Reply again = http.post("/v1/vms/acts/stop", null);
    assertEquals(409, again.status());
    assertTrue(again.detail().contains("stopped"), again.detail());

    Http.Reply start = http.post("/v1/vms/acts/start", null);
    assertEquals(202, start.status());
    assertEquals("pending", start.map().get("status"));
    var latest = temporal.newUntypedWorkflowStub(VmWorkflow.workflowId("acts")).describe();
    assertEquals(WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING, latest.getStatus());
    assertTrue(
        !latest.getExecution().getRunId().equals(stoppedRun), "the start began the next run");
    List<Object> types =
        http.get("/v1/vms/acts/events").items().stream().map(e -> e.get("type")).toList();
    assertEquals(List.of("created", "stopped", "started"), types);
  }

  @Test
  void deletingAStoppedVmBeginsARunThatDeletesItAndSaysSo() throws Exception {
    assertEquals(201, http.post("/v1/vms", vm("finished")).status());
    assertEquals(202, http.post("/v1/vms/finished/stop", null).status());
    var stopped = temporal.newUntypedWorkflowStub(VmWorkflow.workflowId("finished"));
    stopped.getResult(Void.class);
    String stoppedRun = stopped.describe().getExecution().getRunId();

    assertEquals(202, http.delete("/v1/vms/finished").status());
    eventually("the VM is gone", () -> http.get("/v1/vms/finished").status() == 404);
    var deleting = temporal.newUntypedWorkflowStub(VmWorkflow.workflowId("finished"));
    deleting.getResult(Void.class);
    var last = deleting.describe();
    assertTrue(!last.getExecution().getRunId().equals(stoppedRun), "a run of its own");
    assertEquals(
        "deleted",
        last.getTypedSearchAttributes().get(dev.rota.workflows.RotaSearchAttributes.VM_STATUS));
  }

  @Test
  void deleteEndsTheWorkflowAndThenTheVmIsGone() throws Exception {
    assertEquals(201, http.post("/v1/vms", vm("doomed")).status());
    assertEquals(202, http.delete("/v1/vms/doomed").status());
    eventually("the VM is gone", () -> http.get("/v1/vms/doomed").status() == 404);
    assertEquals(404, http.get("/v1/vms/doomed/events").status());
    var stub = temporal.newUntypedWorkflowStub(VmWorkflow.workflowId("doomed"));
    stub.getResult(Void.class);
    assertEquals(
        WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_COMPLETED, stub.describe().getStatus());
    assertEquals(201, http.post("/v1/vms", vm("doomed")).status(), "the name is free again");
  }

  @Test
  void maxRestartsIsKeptWithItsWindowAnHourUnlessGiven() {
    Http.Reply reply =
        http.post(
            "/v1/vms",
            "{\"name\":\"capped\",\"command\":[\"false\"],\"restartPolicy\":\"OnFailure\",\"maxRestarts\":3}");
    assertEquals(201, reply.status(), reply.toString());
    assertEquals(3, reply.map().get("maxRestarts"));
    assertEquals("1h", reply.map().get("restartWindow"));
    assertEquals(3, vms.findById("capped").orElseThrow().spec().maxRestarts());

    Http.Reply windowed =
        http.post(
            "/v1/vms",
            "{\"name\":\"capped-2\",\"command\":[\"false\"],\"maxRestarts\":0,\"restartWindow\":\"10m\"}");
    assertEquals("10m", windowed.map().get("restartWindow"));
  }

  @Test
  void priorityIsKeptAndShownFiftyUnlessGiven() {
    Http.Reply urgent =
        http.post("/v1/vms", "{\"name\":\"release\",\"command\":[\"x\"],\"priority\":80}");
    assertEquals(201, urgent.status(), urgent.toString());
    assertEquals(80, urgent.map().get("priority"));
    assertEquals(80, vms.findById("release").orElseThrow().spec().priority());
    assertEquals(80, vms.findById("release").orElseThrow().scheduling().priority());

    Http.Reply plain = http.post("/v1/vms", vm("nightly"));
    assertEquals(50, plain.map().get("priority"));
    assertEquals(50, vms.findById("nightly").orElseThrow().scheduling().priority());
    assertEquals(50, http.get("/v1/vms/nightly").map().get("priority"));
  }

  @Test
  void constraintsAreKeptAndShownAsGiven() {
    Http.Reply reply =
        http.post(
            "/v1/vms",
            "{\"name\":\"picky\",\"command\":[\"x\"],\"constraints\":["
                + "{\"label\":\"zone\",\"operator\":\"in\",\"values\":[\"a\",\"b\"]},"
                + "{\"label\":\"gpu\",\"operator\":\"exists\"}]}");
    assertEquals(201, reply.status(), reply.toString());
    assertEquals(
        List.of(
            Map.of("label", "zone", "operator", "in", "values", List.of("a", "b")),
            Map.of("label", "gpu", "operator", "exists", "values", List.of())),
        reply.map().get("constraints"));
    assertEquals(
        "[zone in [a, b], gpu exists, rota.dev/worker-pool notExists]",
        vms.findById("picky").orElseThrow().scheduling().constraints().toString(),
        "and the default pool's: no pool label");
    Map<String, Object> plain = http.post("/v1/vms", vm("plain")).map();
    assertEquals(List.of(), plain.get("constraints"));
    assertEquals("default", plain.get("workerPool"));

    Http.Reply gpu =
        http.post("/v1/vms", "{\"name\":\"on-gpu\",\"command\":[\"x\"],\"workerPool\":\"gpu\"}");
    assertEquals(201, gpu.status(), gpu.toString());
    assertEquals("gpu", gpu.map().get("workerPool"));
    assertEquals(List.of(), gpu.map().get("constraints"), "the pool is shown as the pool");
    assertEquals(
        "[rota.dev/worker-pool = gpu]",
        vms.findById("on-gpu").orElseThrow().scheduling().constraints().toString());
  }

  @Test
  void tolerationsAreKeptAndShownAsGiven() {
    Http.Reply reply =
        http.post(
            "/v1/vms",
            "{\"name\":\"tolerant\",\"command\":[\"x\"],\"tolerations\":["
                + "{\"key\":\"dedicated\",\"value\":\"gpu\",\"effect\":\"NoSchedule\"},"
                + "{\"key\":\"spot\",\"operator\":\"Exists\"}]}");
    assertEquals(201, reply.status(), reply.toString());
    assertEquals(
        List.of(
            Map.of("key", "dedicated", "operator", "Equal", "value", "gpu", "effect", "NoSchedule"),
            Map.of("key", "spot", "operator", "Exists")),
        reply.map().get("tolerations"));
    assertEquals(
        "[dedicated=gpu:NoSchedule, spot]",
        vms.findById("tolerant").orElseThrow().scheduling().tolerations().toString());
    assertEquals(List.of(), http.post("/v1/vms", vm("intolerant")).map().get("tolerations"));
  }

  @Test
  void affinitiesAreKeptAndShownAsGiven() {
    Http.Reply reply =
        http.post(
            "/v1/vms",
            "{\"name\":\"fond\",\"command\":[\"x\"],\"affinities\":["
                + "{\"label\":\"zone\",\"operator\":\"=\",\"values\":[\"a\"],\"weight\":50},"
                + "{\"label\":\"spot\",\"operator\":\"exists\",\"weight\":-20}]}");
    assertEquals(201, reply.status(), reply.toString());
    assertEquals(
        List.of(
            Map.of("label", "zone", "operator", "=", "values", List.of("a"), "weight", 50),
            Map.of("label", "spot", "operator", "exists", "values", List.of(), "weight", -20)),
        reply.map().get("affinities"));
    assertEquals(
        "[50 zone = a, -20 spot exists]",
        vms.findById("fond").orElseThrow().scheduling().affinities().toString());
  }

  @Test
  void ttlAfterFinishedIsKeptAndShown() {
    Http.Reply reply =
        http.post(
            "/v1/vms",
            "{\"name\":\"short-lived\",\"command\":[\"true\"],\"ttlAfterFinished\":\"0s\"}");
    assertEquals(201, reply.status(), reply.toString());
    assertEquals("0s", reply.map().get("ttlAfterFinished"), "0s: deleted as soon as it finishes");
    assertEquals(0, vms.findById("short-lived").orElseThrow().spec().ttlSecondsAfterFinished());
  }

  @Test
  void aLeaseIsShownAndOnlyALeaseUnderWayIsExtended() {
    Http.Reply reply =
        http.post(
            "/v1/vms",
            "{\"name\":\"leased\",\"command\":[\"sleep\",\"9\"],\"maxRunDuration\":\"90m\"}");
    assertEquals(201, reply.status(), reply.toString());
    assertEquals("1h30m", reply.map().get("maxRunDuration"));
    assertEquals("stop", reply.map().get("onExpiry"), "stopped when it runs out, unless asked");
    assertTrue(
        reply.map().containsKey("leaseExpiresAt") && reply.map().get("leaseExpiresAt") == null,
        "its lease begins when it first runs");
    assertEquals(5400, vms.findById("leased").orElseThrow().spec().maxRunSeconds());
    Http.Reply early = http.put("/v1/vms/leased/lease", "{\"extendBy\":\"30m\"}");
    assertEquals(409, early.status(), early.toString());
    assertTrue(early.detail().contains("its lease begins when it first runs"), early.detail());

    assertEquals(201, http.post("/v1/vms", vm("unleased")).status());
    Http.Reply none = http.put("/v1/vms/unleased/lease", "{\"extendBy\":\"30m\"}");
    assertEquals(409, none.status(), none.toString());
    assertTrue(none.detail().contains("it has no lease (maxRunDuration)"), none.detail());
    assertNull(http.get("/v1/vms/unleased").map().get("maxRunDuration"));

    Http.Reply deleting =
        http.post(
            "/v1/vms",
            "{\"name\":\"sandbox\",\"command\":[\"x\"],\"maxRunDuration\":\"10m\",\"onExpiry\":\"delete\"}");
    assertEquals("delete", deleting.map().get("onExpiry"));
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      textBlock =
          """
          no body          |                                   | body
          no extendBy      | {}                                | extendBy
          not a duration   | {"extendBy":"soon"}               | extendBy: must be a duration
          nothing at all   | {"extendBy":"0s"}                 | extendBy
          a number         | {"extendBy":1800}                 | extendBy
          unknown field    | {"extendBy":"1h","until":"later"} | until
          """)
  void aBadExtensionIsAProblemNamingTheField(String why, String body, String field) {
    String name = "lease-" + why.toLowerCase().replace(' ', '-');
    assertEquals(201, http.post("/v1/vms", vm(name)).status());
    Http.Reply reply = http.put("/v1/vms/" + name + "/lease", body);
    assertEquals(400, reply.status(), reply.toString());
    assertTrue(reply.isProblem());
    assertTrue(reply.detail().contains(field), why + ": " + reply.detail());
  }

  @Test
  void aPersistentDiskIsShownAndKeepsItsVmThroughACut() {
    Http.Reply reply =
        http.post(
            "/v1/vms",
            "{\"name\":\"devbox\",\"runtime\":\"qemu\",\"image\":\"file:///d.qcow2\","
                + "\"isolation\":\"optional\",\"disk\":{\"persistent\":true,\"sizeGi\":20}}");
    assertEquals(201, reply.status(), reply.toString());
    assertEquals(Map.of("persistent", true, "sizeGi", 20), reply.map().get("disk"));
    assertEquals(
        Map.of("replace", false), reply.map().get("disconnect"), "never replaced elsewhere");
    assertTrue(reply.map().containsKey("diskOn") && reply.map().get("diskOn") == null);
    var spec = vms.findById("devbox").orElseThrow().spec();
    assertTrue(spec.persistentDisk());
    assertEquals(20, spec.diskSizeGi());
    Map<String, Object> plain =
        http.post(
                "/v1/vms",
                "{\"name\":\"cibox\",\"runtime\":\"qemu\",\"image\":\"file:///d.qcow2\"}")
            .map();
    assertTrue(plain.containsKey("disk") && plain.get("disk") == null, "ephemeral unless asked");
    assertEquals("live", reply.map().get("migration"), "a persistent VM moves live unless told");
    assertEquals("restart", plain.get("migration"), "an ephemeral one cannot");
    assertEquals("live", vms.findById("devbox").orElseThrow().spec().migration());
    Http.Reply restarted =
        http.post(
            "/v1/vms",
            "{\"name\":\"devbox2\",\"runtime\":\"qemu\",\"image\":\"file:///d.qcow2\","
                + "\"disk\":{\"persistent\":true},\"migration\":\"restart\"}");
    assertEquals("restart", restarted.map().get("migration"), restarted.toString());
  }
}
