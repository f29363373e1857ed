package dev.rota.api;

import dev.rota.api.auth.Caller;
import io.micronaut.http.HttpMethod;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.MutableHttpResponse;
import io.micronaut.http.annotation.ResponseFilter;
import io.micronaut.http.annotation.ServerFilter;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One line per user action, at INFO, under the logger {@code dev.rota.audit}: who (the service
 * account), what (the method and the path, which names the object) and how it was answered. An
 * agent's registrations, heartbeats and task reports are the fleet's traffic, not users' actions,
 * and reads change nothing: neither is logged.
 */
@ServerFilter("/v1/**")
public class AuditLog {
  private static final Logger log = LoggerFactory.getLogger("dev.rota.audit");
  private static final Set<HttpMethod> READS =
      Set.of(HttpMethod.GET, HttpMethod.HEAD, HttpMethod.OPTIONS);

  @ResponseFilter
  public void audit(HttpRequest<?> request, MutableHttpResponse<?> response) {
    if (READS.contains(request.getMethod()) || agentTraffic(request)) {
      return;
    }
    log.info(
        "audit caller={} action=\"{} {}\" status={}",
        Caller.of(request).name(),
        request.getMethod(),
        request.getPath(),
        response.code());
  }

  private static boolean agentTraffic(HttpRequest<?> request) {
    String path = request.getPath();
    return Caller.of(request).workerOnly()
        || path.endsWith("/heartbeat")
        || path.endsWith("/tasks")
        || (request.getMethod() == HttpMethod.POST && path.equals("/v1/workers"));
  }
}
