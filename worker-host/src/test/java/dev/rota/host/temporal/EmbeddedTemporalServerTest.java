package dev.rota.host.temporal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.temporal.api.taskqueue.v1.TaskQueue;
import io.temporal.api.workflowservice.v1.PollWorkflowTaskQueueRequest;
import io.temporal.api.workflowservice.v1.PollWorkflowTaskQueueResponse;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import io.temporal.internal.testservice.TestServicesStarter;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;
import io.temporal.worker.Worker;
import io.temporal.worker.WorkerFactory;
import io.temporal.workflow.Workflow;
import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The embedded server runs workflows, serves each task queue in order, keeps no record of them that
 * grows while the host runs, and is one server to its port and to this process's own channel.
 */
class EmbeddedTemporalServerTest {
  @WorkflowInterface
  public interface Nap {
    @WorkflowMethod
    String nap();
  }

  public static class NapImpl implements Nap {
    @Override
    public String nap() {
      Workflow.sleep(Duration.ofMillis(1));
      return "rested";
    }
  }

  private EmbeddedTemporalServer server;
  private WorkflowServiceStubs stubs;

  @BeforeEach
  void start() throws Exception {
    int port;
    try (ServerSocket free = new ServerSocket(0)) {
      port = free.getLocalPort();
    }
    server = EmbeddedTemporalServer.start(port);
    stubs =
        WorkflowServiceStubs.newServiceStubs(
            WorkflowServiceStubsOptions.newBuilder().setTarget("127.0.0.1:" + port).build());
  }

  @AfterEach
  void stop() {
    stubs.shutdownNow();
    server.close();
  }

  @Test
  void aTaskQueueServesItsBacklogFirstComeFirstServed() {
    WorkflowClient client = WorkflowClient.newInstance(stubs);
    List<String> started = new ArrayList<>();
    for (int i = 0; i < 30; i++) {
      String id = "waiting-" + i;
      client
          .newUntypedWorkflowStub(
              "Nap", WorkflowOptions.newBuilder().setTaskQueue("backlog").setWorkflowId(id).build())
          .start();
      started.add(id);
    }
    List<String> served = new ArrayList<>();
    for (int i = 0; i < started.size(); i++) {
      PollWorkflowTaskQueueResponse task =
          stubs
              .blockingStub()
              .pollWorkflowTaskQueue(
                  PollWorkflowTaskQueueRequest.newBuilder()
                      .setNamespace("default")
                      .setTaskQueue(TaskQueue.newBuilder().setName("backlog"))
                      .setIdentity("test")
                      .build());
      served.add(task.getWorkflowExecution().getWorkflowId());
    }
    assertEquals(
        started, served, "the oldest waiting task first (without the fix: 0, 29, 28, ... 1)");
  }

  @Test
  void workflowsRunAndTheTimerKeepsNoRecordOfTheirLocks() throws Exception {
    WorkerFactory factory = null;
    try {
      WorkflowClient client = WorkflowClient.newInstance(stubs);
      factory = WorkerFactory.newInstance(client);
      Worker worker = factory.newWorker("naps");
      worker.registerWorkflowImplementationTypes(NapImpl.class);
      factory.start();
      for (int i = 0; i < 20; i++) {
        Nap nap =
            client.newWorkflowStub(
                Nap.class,
                WorkflowOptions.newBuilder()
                    .setTaskQueue("naps")
                    .setWorkflowId("nap-" + i)
                    .build());
        assertEquals("rested", nap.nap());
      }
      List<?> record = lockRecord();
      assertTrue(
          record instanceof UnkeptTimerLocks, "the timer's record replaced: " + record.getClass());
      assertEquals(
          0,
          record.size(),
          "20 workflows, each two workflow tasks and a timer, left nothing behind (81 events without the fix)");
    } finally {
      if (factory != null) {
        factory.shutdownNow();
      }
    }
  }

  @Test
  void thisProcessesChannelAndThePortReachOneServer() {
    WorkflowServiceStubs inside =
        WorkflowServiceStubs.newServiceStubs(
            WorkflowServiceStubsOptions.newBuilder()
                .setChannel(server.inProcessChannel().orElseThrow())
                .build());
    WorkerFactory factory = WorkerFactory.newInstance(WorkflowClient.newInstance(inside));
    try {
      factory.newWorker("inside").registerWorkflowImplementationTypes(NapImpl.class);
      factory.start();
      Nap nap =
          WorkflowClient.newInstance(stubs)
              .newWorkflowStub(
                  Nap.class,
                  WorkflowOptions.newBuilder()
                      .setTaskQueue("inside")
                      .setWorkflowId("through-the-port")
                      // Two servers would leave it unrun: it fails after this rather than waiting
                      // for ever.
                      .setWorkflowExecutionTimeout(Duration.ofSeconds(30))
                      .build());
      assertEquals(
          "rested",
          nap.nap(),
          "started through the port, run by a worker polling within the process");
    } finally {
      factory.shutdownNow();
      inside.shutdownNow();
    }
  }

  private List<?> lockRecord() throws ReflectiveOperationException {
    Object services =
        TestServerFields.open(EmbeddedTemporalServer.class, "services", TestServicesStarter.class)
            .get(server);
    Object timer =
        TestServerFields.open(TestServicesStarter.class, "selfAdvancingTimer", Object.class)
            .get(services);
    return (List<?>) TestServerFields.open(timer.getClass(), "lockEvents", List.class).get(timer);
  }
}
