package dev.rota.agent;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.Map;

/**
 * A test's calls to a plain-HTTP agent's task API, with its secret, and a look at this machine's
 * processes.
 */
public record AgentCalls(Agent agent) {
  private static final ObjectMapper JSON = new ObjectMapper();

  public HttpResponse<String> send(String method, String path, String body) throws Exception {
    HttpRequest request =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + agent.port() + path))
            .header("Authorization", "Bearer " + agent.secret())
            .method(
                method,
                body == null
                    ? HttpRequest.BodyPublishers.noBody()
                    : HttpRequest.BodyPublishers.ofString(body))
            .build();
    return HttpClient.newHttpClient().send(request, HttpResponse.BodyHandlers.ofString());
  }

  /** {@code PUT} of task {@code <vm>.0} running {@code sleep <seconds>}; its status. */
  public int putSleep(String vm, String seconds) throws Exception {
    return send(
            "PUT",
            "/v1/tasks/" + vm + ".0",
            "{\"vm\":\""
                + vm
                + "\",\"restartCount\":0,\"runtime\":\"process\",\"command\":[\"sleep\",\""
                + seconds
                + "\"]}")
        .statusCode();
  }

  /** The task as the agent lists it; null when it has none of that id. */
  @SuppressWarnings("unchecked")
  public Map<String, Object> task(String id) {
    try {
      List<Map<String, Object>> tasks =
          JSON.readValue(send("GET", "/v1/tasks", null).body(), List.class);
      return tasks.stream().filter(t -> id.equals(t.get("id"))).findFirst().orElse(null);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * The one process running {@code args}, once there is exactly one: a task is running once its
   * process is spawned, and the command may take a moment longer to be exec'd on a loaded machine,
   * where a process's command line was also once unreadable for a moment (a listing found it, the
   * next did not). Two or more for good fail: the test's task did not start once.
   */
  public static ProcessHandle theProcess(String args) {
    java.util.concurrent.atomic.AtomicReference<ProcessHandle> one =
        new java.util.concurrent.atomic.AtomicReference<>();
    dev.rota.testing.Eventually.eventually(
        "one process running " + args,
        () -> {
          List<ProcessHandle> found = processes(args);
          one.set(found.size() == 1 ? found.get(0) : null);
          return one.get() != null;
        });
    return one.get();
  }

  /** The live processes of this machine whose command line ends with {@code args}. */
  public static List<ProcessHandle> processes(String args) {
    return ProcessHandle.allProcesses()
        .filter(p -> p.isAlive() && p.info().commandLine().map(c -> c.endsWith(args)).orElse(false))
        .toList();
  }
}
