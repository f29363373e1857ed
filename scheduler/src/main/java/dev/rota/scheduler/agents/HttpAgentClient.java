package dev.rota.scheduler.agents;

import dev.rota.agentapi.AgentRejectedException;
import dev.rota.agentapi.LogChunk;
import dev.rota.agentapi.LogHeaders;
import dev.rota.agentapi.LogQuery;
import dev.rota.agentapi.PinnedCertificates;
import dev.rota.agentapi.TaskSpec;
import dev.rota.agentapi.TaskStarts;
import dev.rota.agentapi.TaskView;
import dev.rota.store.AgentAddress;
import io.micronaut.core.type.Argument;
import io.micronaut.serde.ObjectMapper;
import io.micronaut.serde.annotation.SerdeImport;
import jakarta.inject.Singleton;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/** {@link AgentClient} over real HTTP, with a deadline on every call. */
// The agent's wire types are plain records shared with the agent (module agent-api): serde imports
// them.
@SerdeImport(TaskSpec.class)
@SerdeImport(dev.rota.agentapi.GuestSpec.class)
@SerdeImport(dev.rota.agentapi.Disconnect.class)
@SerdeImport(dev.rota.agentapi.DiskSpec.class)
@SerdeImport(dev.rota.agentapi.DiskSource.class)
@SerdeImport(dev.rota.agentapi.HeldDisk.class)
@SerdeImport(dev.rota.agentapi.VolumeSpec.class)
@SerdeImport(dev.rota.agentapi.DiskSnapshot.class)
@SerdeImport(dev.rota.agentapi.DiskSnapshot.Request.class)
@SerdeImport(TaskView.class)
@SerdeImport(TaskStarts.class)
@SerdeImport(TaskStarts.Item.class)
@SerdeImport(TaskStarts.Answer.class)
@SerdeImport(TaskStarts.Outcome.class)
@SerdeImport(dev.rota.agentapi.TaskRemovals.class)
@SerdeImport(dev.rota.agentapi.TaskRemovals.Task.class)
@Singleton
public class HttpAgentClient implements AgentClient {
  private final PinnedCertificates pins = new PinnedCertificates();
  private final HttpClient http =
      HttpClient.newBuilder()
          .connectTimeout(Duration.ofSeconds(2))
          .version(HttpClient.Version.HTTP_1_1)
          .sslContext(pins.context())
          .build();
  private final ObjectMapper json;

  public HttpAgentClient(ObjectMapper json) {
    this.json = json;
  }

  @Override
  public Probe probe(AgentAddress agent, Duration timeout) {
    String endpoint = agent.endpoint();
    Instant deadline = Instant.now().plus(timeout);
    try {
      HttpResponse<String> health =
          send(agent, HttpRequest.newBuilder(uri(endpoint, "/healthz")).GET(), remaining(deadline));
      if (health.statusCode() != 200) {
        return Probe.failed("GET /healthz answered " + health.statusCode());
      }
      HttpResponse<String> tasks =
          send(
              agent,
              authorized(HttpRequest.newBuilder(uri(endpoint, "/v1/tasks")).GET(), agent),
              remaining(deadline));
      if (tasks.statusCode() != 200) {
        return Probe.failed("GET /v1/tasks answered " + tasks.statusCode());
      }
      return Probe.answered(json.readValue(tasks.body(), Argument.listOf(TaskView.class)));
    } catch (HttpTimeoutException e) {
      return Probe.failed("no answer within " + timeout.toMillis() + " ms");
    } catch (IOException e) {
      return Probe.failed(
          e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": " + e.getMessage()));
    } catch (IllegalArgumentException e) {
      return Probe.failed("bad endpoint " + endpoint + ": " + e.getMessage());
    }
  }

  /** When this call gives up on its answer: after that, the agent must not start what it asks. */
  private static String startBefore(Duration timeout) {
    return Long.toString(System.currentTimeMillis() + timeout.toMillis());
  }

  @Override
  public void startTask(AgentAddress agent, String taskId, TaskSpec spec, Duration timeout) {
    String endpoint = agent.endpoint();
    try {
      HttpRequest.Builder put =
          authorized(HttpRequest.newBuilder(uri(endpoint, "/v1/tasks/" + encode(taskId))), agent)
              .header("Content-Type", "application/json")
              .header(TaskStarts.START_BEFORE, startBefore(timeout))
              .PUT(HttpRequest.BodyPublishers.ofString(json.writeValueAsString(spec)));
      expect(send(agent, put, timeout), "PUT /v1/tasks/" + taskId, 200, 201);
    } catch (IOException e) {
      throw new UncheckedIOException(
          "PUT /v1/tasks/" + taskId + " on " + endpoint + ": " + e.getMessage(), e);
    }
  }

  @Override
  public List<TaskStarts.Outcome> startTasks(
      AgentAddress agent, List<TaskStarts.Item> starts, Duration timeout) {
    String endpoint = agent.endpoint();
    HttpResponse<String> answer;
    try {
      HttpRequest.Builder post =
          authorized(HttpRequest.newBuilder(uri(endpoint, "/v1/tasks")), agent)
              .header("Content-Type", "application/json")
              .header(TaskStarts.START_BEFORE, startBefore(timeout))
              .POST(
                  HttpRequest.BodyPublishers.ofString(
                      json.writeValueAsString(new TaskStarts(starts))));
      answer = send(agent, post, timeout);
      if (answer.statusCode() == 404 || answer.statusCode() == 405) {
        return AgentClient.super.startTasks(agent, starts, timeout); // an agent that takes no batch
      }
      if (answer.statusCode() == 200) {
        List<TaskStarts.Outcome> outcomes =
            json.readValue(answer.body(), TaskStarts.Answer.class).items();
        if (outcomes != null && outcomes.size() == starts.size()) {
          // A refusal says which call refused, as a task's own PUT's does.
          return outcomes.stream()
              .map(
                  o ->
                      o.started()
                          ? o
                          : new TaskStarts.Outcome(
                              o.id(),
                              o.status(),
                              "POST /v1/tasks answered "
                                  + o.status()
                                  + " for "
                                  + o.id()
                                  + ": "
                                  + o.detail()))
              .toList();
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(
          "POST /v1/tasks (" + starts.size() + " tasks) on " + endpoint + ": " + e.getMessage(), e);
    }
    // A batch refused as a whole says nothing of its tasks: they are tried again, not failed.
    throw new IllegalStateException(
        "POST /v1/tasks ("
            + starts.size()
            + " tasks) on "
            + endpoint
            + " answered "
            + answer.statusCode()
            + ": "
            + answer.body().strip().lines().findFirst().orElse(""));
  }

  @Override
  public void removeTask(
      AgentAddress agent, String taskId, Long submission, boolean discardLogs, Duration timeout) {
    List<String> query = new ArrayList<>();
    if (submission != null) {
      query.add("submission=" + submission);
    }
    if (discardLogs) {
      query.add("logs=discard");
    }
    delete(
        agent,
        "/v1/tasks/" + encode(taskId) + (query.isEmpty() ? "" : "?" + String.join("&", query)),
        timeout,
        204,
        200,
        404);
  }

  @Override
  public void removeDeleted(
      AgentAddress agent, dev.rota.agentapi.TaskRemovals removals, Duration timeout) {
    String call =
        "POST /v1/removals ("
            + removals.tasks().size()
            + " tasks, "
            + removals.vms().size()
            + " VMs)";
    try {
      HttpRequest.Builder post =
          authorized(HttpRequest.newBuilder(uri(agent.endpoint(), "/v1/removals")), agent)
              .header("Content-Type", "application/json")
              .POST(HttpRequest.BodyPublishers.ofString(json.writeValueAsString(removals)));
      HttpResponse<String> answer = send(agent, post, timeout);
      if (answer.statusCode() == 404 || answer.statusCode() == 405) {
        AgentClient.super.removeDeleted(agent, removals, timeout); // an agent that takes no batch
        return;
      }
      expect(answer, call, 204);
    } catch (IOException e) {
      throw new UncheckedIOException(call + " on " + agent.endpoint() + ": " + e.getMessage(), e);
    }
  }

  @Override
  public LogChunk logs(AgentAddress agent, String taskId, LogQuery query, Duration timeout) {
    String endpoint = agent.endpoint();
    String call = "GET /v1/tasks/" + taskId + "/logs";
    try {
      HttpRequest.Builder get =
          authorized(
                  HttpRequest.newBuilder(
                      uri(
                          endpoint,
                          "/v1/tasks/" + encode(taskId) + "/logs" + query.asQueryString())),
                  agent)
              .GET();
      HttpResponse<byte[]> response =
          send(agent, get, timeout, HttpResponse.BodyHandlers.ofByteArray());
      expect(response, call, 200);
      return new LogChunk(
          response.body(),
          response.headers().firstValueAsLong(LogHeaders.NEXT).orElse(0),
          response.headers().firstValue(LogHeaders.LIVE).map(Boolean::parseBoolean).orElse(false));
    } catch (HttpTimeoutException e) {
      throw new IllegalStateException(
          call + " on " + endpoint + ": no answer within " + timeout.toMillis() + " ms", e);
    } catch (IOException e) {
      throw new UncheckedIOException(call + " on " + endpoint + ": " + e.getMessage(), e);
    }
  }

  @Override
  public void forgetLogs(AgentAddress agent, String vm, Duration timeout) {
    delete(agent, "/v1/logs/" + encode(vm), timeout, 204, 404);
  }

  @Override
  public void deleteDisk(AgentAddress agent, String diskId, Duration timeout) {
    delete(agent, "/v1/disks/" + encode(diskId), timeout, 204, 404);
  }

  @Override
  public List<dev.rota.agentapi.HeldDisk> disks(AgentAddress agent, Duration timeout) {
    String endpoint = agent.endpoint();
    try {
      HttpResponse<String> listed =
          send(
              agent,
              authorized(HttpRequest.newBuilder(uri(endpoint, "/v1/disks")).GET(), agent),
              timeout);
      if (listed.statusCode() == 404) {
        return List.of(); // an agent from before persistent disks holds none
      }
      expect(listed, "GET /v1/disks", 200);
      return json.readValue(listed.body(), Argument.listOf(dev.rota.agentapi.HeldDisk.class));
    } catch (IOException e) {
      throw new UncheckedIOException("GET /v1/disks on " + endpoint + ": " + e.getMessage(), e);
    }
  }

  @Override
  public dev.rota.agentapi.DiskSnapshot snapshotDisk(
      AgentAddress agent, String diskId, String image, boolean memory, Duration timeout) {
    String path = "/v1/disks/" + encode(diskId) + "/snapshot";
    try {
      HttpResponse<String> answer =
          send(
              agent,
              authorized(HttpRequest.newBuilder(uri(agent.endpoint(), path)), agent)
                  .header("Content-Type", "application/json")
                  .POST(
                      HttpRequest.BodyPublishers.ofByteArray(
                          json.writeValueAsBytes(
                              new dev.rota.agentapi.DiskSnapshot.Request(image, memory)))),
              timeout);
      if (answer.statusCode() == 502) {
        // The registry refused it: the agent says why, for the user to read.
        throw new dev.rota.agentapi.AgentRejectedException(
            502, "POST " + path + " answered 502: " + answer.body().strip());
      }
      expect(answer, "POST " + path, 200);
      return json.readValue(answer.body(), dev.rota.agentapi.DiskSnapshot.class);
    } catch (IOException e) {
      throw new UncheckedIOException(
          "POST " + path + " on " + agent.endpoint() + ": " + e.getMessage(), e);
    }
  }

  @Override
  public long suspendTask(AgentAddress agent, String taskId, Duration timeout) {
    String path = "/v1/tasks/" + encode(taskId) + "/suspend";
    try {
      HttpResponse<String> answer =
          send(
              agent,
              authorized(HttpRequest.newBuilder(uri(agent.endpoint(), path)), agent)
                  .POST(HttpRequest.BodyPublishers.noBody()),
              timeout);
      expect(answer, "POST " + path, 200);
      return json.readValue(answer.body(), Argument.mapOf(String.class, Long.class))
          .getOrDefault("bytes", 0L);
    } catch (IOException e) {
      throw new UncheckedIOException(
          "POST " + path + " on " + agent.endpoint() + ": " + e.getMessage(), e);
    }
  }

  @Override
  public void pauseTask(AgentAddress agent, String taskId, boolean pause, Duration timeout) {
    postAnswering204(
        agent,
        "/v1/tasks/" + encode(taskId) + (pause ? "/pause" : "/continue"),
        HttpRequest.BodyPublishers.noBody(),
        timeout);
  }

  /** A POST of {@code body} to {@code path} that answers 204. */
  private void postAnswering204(
      AgentAddress agent, String path, HttpRequest.BodyPublisher body, Duration timeout) {
    try {
      expect(
          send(
              agent,
              authorized(HttpRequest.newBuilder(uri(agent.endpoint(), path)), agent)
                  .header("Content-Type", "application/octet-stream")
                  .POST(body),
              timeout),
          "POST " + path,
          204);
    } catch (IOException e) {
      throw new UncheckedIOException(
          "POST " + path + " on " + agent.endpoint() + ": " + e.getMessage(), e);
    }
  }

  @Override
  public void deliverUserData(
      AgentAddress agent, String taskId, long submission, byte[] userData, Duration timeout) {
    postAnswering204(
        agent,
        "/v1/tasks/" + encode(taskId) + "/user-data?submission=" + submission,
        HttpRequest.BodyPublishers.ofByteArray(userData),
        timeout);
  }

  /** A DELETE of {@code path} that may answer {@code ok}; a gone resource is one of them. */
  private void delete(AgentAddress agent, String path, Duration timeout, int... ok) {
    String endpoint = agent.endpoint();
    try {
      HttpRequest.Builder delete =
          authorized(HttpRequest.newBuilder(uri(endpoint, path)), agent).DELETE();
      expect(send(agent, delete, timeout), "DELETE " + path, ok);
    } catch (IOException e) {
      throw new UncheckedIOException(
          "DELETE " + path + " on " + endpoint + ": " + e.getMessage(), e);
    }
  }

  private static HttpRequest.Builder authorized(HttpRequest.Builder request, AgentAddress agent) {
    return agent.secret() == null
        ? request
        : request.header("Authorization", "Bearer " + agent.secret());
  }

  private HttpResponse<String> send(
      AgentAddress agent, HttpRequest.Builder request, Duration timeout) throws IOException {
    return send(agent, request, timeout, HttpResponse.BodyHandlers.ofString());
  }

  @Override
  public dev.rota.agentapi.TaskTunnel connect(AgentAddress agent, String target, Duration timeout)
      throws IOException {
    URI uri = URI.create(agent.endpoint());
    javax.net.ssl.SSLContext tls = null;
    if (uri.getScheme().equals("https")) {
      pin(agent, uri);
      tls = pins.context();
    }
    return dev.rota.agentapi.TaskTunnel.dial(uri, tls, agent.secret(), target, timeout);
  }

  private <T> HttpResponse<T> send(
      AgentAddress agent,
      HttpRequest.Builder request,
      Duration timeout,
      HttpResponse.BodyHandler<T> body)
      throws IOException {
    HttpRequest built = request.timeout(timeout).build();
    if (built.uri().getScheme().equals("https")) {
      pin(agent, built.uri());
    }
    try {
      HttpResponse<T> response = http.send(built, body);
      if (agent.certificateSha256() != null) {
        // A connection kept from an earlier call was checked against the pin of that time: the pin
        // may have changed since (the worker deleted and registered anew), so check the answer's
        // too.
        pins.checkAnswered(response.sslSession(), agent.certificateSha256(), agent.endpoint());
      }
      return response;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted", e);
    }
  }

  private static void expect(HttpResponse<?> response, String call, int... ok) {
    for (int status : ok) {
      if (response.statusCode() == status) {
        return;
      }
    }
    String body =
        response.body() instanceof byte[] bytes
            ? new String(bytes, java.nio.charset.StandardCharsets.UTF_8).strip()
            : response.body() == null ? "" : response.body().toString().strip();
    String message =
        call
            + " answered "
            + response.statusCode()
            + (body.isEmpty() ? "" : ": " + body.lines().findFirst().orElse(""));
    if (response.statusCode() >= 400 && response.statusCode() < 500) {
      throw new AgentRejectedException(response.statusCode(), message);
    }
    throw new IllegalStateException(message);
  }

  private static Duration remaining(Instant deadline) throws HttpTimeoutException {
    Duration left = Duration.between(Instant.now(), deadline);
    if (left.isNegative() || left.isZero()) {
      throw new HttpTimeoutException("deadline passed");
    }
    return left;
  }

  /** Trusts, for calls to {@code uri}, only the certificate pinned at the agent's registration. */
  private void pin(AgentAddress agent, URI uri) throws IOException {
    if (agent.certificateSha256() == null) {
      throw new IOException(
          "no certificate pinned for " + agent.endpoint() + ": its agent registered without one");
    }
    pins.expect(uri.getHost() + ":" + port(uri), agent.certificateSha256());
  }

  private static int port(URI uri) {
    return uri.getPort() != -1 ? uri.getPort() : uri.getScheme().equals("https") ? 443 : 80;
  }

  private static URI uri(String endpoint, String path) {
    String base = endpoint.endsWith("/") ? endpoint.substring(0, endpoint.length() - 1) : endpoint;
    return URI.create(base + path);
  }

  private static String encode(String taskId) {
    return URLEncoder.encode(taskId, StandardCharsets.UTF_8);
  }
}
