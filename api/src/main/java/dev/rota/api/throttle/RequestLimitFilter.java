package dev.rota.api.throttle;

import dev.rota.api.ApiSettings;
import dev.rota.api.auth.AuthFilter;
import dev.rota.api.problem.RetryLater;
import io.micronaut.core.async.publisher.Publishers;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpStatus;
import io.micronaut.http.MutableHttpResponse;
import io.micronaut.http.annotation.Filter;
import io.micronaut.http.filter.HttpServerFilter;
import io.micronaut.http.filter.ServerFilterChain;
import io.micronaut.http.filter.ServerFilterPhase;
import io.micronaut.http.server.exceptions.response.ErrorResponseProcessor;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;

/**
 * The bounds on what callers may ask of a host, checked before anything else (before a token is
 * looked up in the database): each caller's rate ({@link Callers}: a token, or an address; {@code
 * rota.api.rate-limit} requests a second after bursts of {@code rota.api.rate-burst}) and the
 * requests the host works on at once ({@code rota.api.max-in-flight}; watches have their own bound,
 * and agents' heartbeats and task reports none). Past a bound, a 429 problem with Retry-After, at
 * once: nothing waits in a queue, nothing was done. With auth off only the in-flight bound applies.
 */
@Filter(Filter.MATCH_ALL_PATTERN)
public class RequestLimitFilter implements HttpServerFilter {
  private final Callers callers;
  private final ErrorResponseProcessor<?> problems;
  private final TokenBuckets rates;
  private final int burst;
  private final String perSecond;
  private final int maxInFlight;
  private final AtomicInteger inFlight = new AtomicInteger();

  /**
   * An agent's heartbeat ({@code PUT /v1/workers/{name}/heartbeat}) or task report ({@code
   * …/tasks}).
   */
  private static final java.util.regex.Pattern AGENT_UPKEEP =
      java.util.regex.Pattern.compile("/v1/workers/[^/]+/(heartbeat|tasks)");

  public RequestLimitFilter(
      Callers callers, ErrorResponseProcessor<?> problems, ApiSettings settings) {
    double perSecond = settings.rateLimit();
    int burst = settings.rateBurst();
    int maxInFlight = settings.maxInFlight();
    this.callers = callers;
    this.problems = problems;
    this.rates = new TokenBuckets(perSecond, burst, 10_000);
    this.burst = burst;
    this.perSecond =
        perSecond % 1 == 0 ? String.valueOf((long) perSecond) : String.valueOf(perSecond);
    this.maxInFlight = maxInFlight;
  }

  @Override
  public int getOrder() {
    return ServerFilterPhase.FIRST.order();
  }

  @Override
  public Publisher<MutableHttpResponse<?>> doFilter(
      HttpRequest<?> request, ServerFilterChain chain) {
    if (AuthFilter.isOpen(request.getPath())) {
      return chain.proceed(request);
    }
    long now = System.nanoTime();
    for (String caller : callers.of(request)) {
      Optional<Duration> wait = rates.take(caller, now);
      if (wait.isPresent()) {
        return Publishers.just(
            tooMany(
                request,
                wait.get(),
                (caller.startsWith("token") ? "this token" : "this address (without a known token)")
                    + " sent more than its "
                    + "share: bursts of "
                    + burst
                    + ", then "
                    + perSecond
                    + " requests a second"));
      }
    }
    if (boundedApart(request)) {
      return chain.proceed(request);
    }
    if (inFlight.incrementAndGet() > maxInFlight) {
      inFlight.decrementAndGet();
      return Publishers.just(
          tooMany(
              request,
              Duration.ofSeconds(1),
              "this host is answering " + maxInFlight + " requests, the most it takes at once"));
    }
    return Flux.from(chain.proceed(request)).doFinally(signal -> inFlight.decrementAndGet());
  }

  /**
   * Requests the in-flight bound does not count. A watch or a followed log is held open for long;
   * {@code WatchStreams} bounds them. An agent's heartbeat or task report: refused under load, a
   * fleet's heartbeats turned load into lost workers and failovers, which are more load (at 1,000
   * workers, VMs failed over from healthy workers while 10,000 were submitted). Their number bounds
   * itself: each agent sends them one at a time (a report may overlap one other); each caller's
   * rate still applies. Kubernetes' API priority and fairness likewise keeps node heartbeats apart
   * from other work.
   */
  private static boolean boundedApart(HttpRequest<?> request) {
    return "true".equals(request.getParameters().get("watch"))
        || "true".equals(request.getParameters().get("follow"))
        || request.getMethod() == io.micronaut.http.HttpMethod.PUT
            && AGENT_UPKEEP.matcher(request.getPath()).matches();
  }

  private MutableHttpResponse<?> tooMany(HttpRequest<?> request, Duration wait, String detail) {
    long seconds = Math.max(1, (wait.toMillis() + 999) / 1000);
    return RetryLater.answer(
        problems,
        request,
        HttpStatus.TOO_MANY_REQUESTS,
        seconds,
        detail + "; retry after " + seconds + " s, nothing was done");
  }
}
