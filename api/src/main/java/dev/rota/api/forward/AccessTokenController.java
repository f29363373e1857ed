package dev.rota.api.forward;

import dev.rota.api.JsonBodies;
import dev.rota.api.auth.Caller;
import dev.rota.api.auth.NamespaceScope;
import dev.rota.api.auth.RequiresRole;
import dev.rota.api.auth.Role;
import dev.rota.api.auth.Tokens;
import dev.rota.api.problem.ProblemAnswers;
import dev.rota.api.problem.Problems;
import dev.rota.store.VmAccessTokenRepository;
import dev.rota.store.VmAccessTokenRow;
import dev.rota.store.VmRepository;
import dev.rota.store.VmRow;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpStatus;
import io.micronaut.http.annotation.Body;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Post;
import io.micronaut.http.annotation.Status;
import io.micronaut.scheduling.TaskExecutors;
import io.micronaut.scheduling.annotation.ExecuteOn;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.parameters.RequestBody;
import io.swagger.v3.oas.annotations.tags.Tag;
import java.time.Clock;
import java.time.Instant;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code POST /v1/vms/{name}/access-tokens}: a short-lived token for one VM's port-forward, console
 * and exec (and so {@code rota vm ssh} and {@code connect}), to hand to whoever needs into that VM
 * and nothing else: a CI job, a colleague at a dev box.
 */
@ProblemAnswers.Guarded
@Tag(name = "VMs")
@Controller("/v1/vms/{name}/access-tokens")
@ExecuteOn(TaskExecutors.BLOCKING)
public class AccessTokenController {
  private static final Logger log = LoggerFactory.getLogger(AccessTokenController.class);

  private final VmRepository vms;
  private final VmAccessTokenRepository tokens;
  private final JsonBodies bodies;
  private final Clock clock;

  public AccessTokenController(
      VmRepository vms, VmAccessTokenRepository tokens, JsonBodies bodies, Clock clock) {
    this.vms = vms;
    this.tokens = tokens;
    this.bodies = bodies;
    this.clock = clock;
  }

  /** 201 with the token, shown this once. */
  @RequiresRole(Role.COMPUTE_CONNECT)
  @NamespaceScope(NamespaceScope.From.VM)
  @Post
  @Status(HttpStatus.CREATED)
  @RequestBody(content = @Content(schema = @Schema(implementation = AccessTokenRequest.class)))
  @Operation(
      operationId = "createVmAccessToken",
      summary = "Make a token that opens this VM's sockets alone, for a while")
  @ProblemAnswers.Invalid
  @ProblemAnswers.Missing
  public AccessTokenView create(String name, HttpRequest<?> http, @Body @Nullable String body) {
    AccessTokenRequest request =
        body == null || body.isBlank()
            ? new AccessTokenRequest(null)
            : bodies.read(body, AccessTokenRequest.class);
    int seconds =
        request.ttl() == null
            ? AccessTokenRequest.DEFAULT_SECONDS
            : dev.rota.api.Durations.seconds("ttl", request.ttl(), false);
    if (seconds > AccessTokenRequest.MAX_SECONDS) {
      throw Problems.badRequest("ttl", "must be at most 24h: a token for a VM is short-lived");
    }
    VmRow vm = vms.findById(name).orElseThrow(() -> Problems.notFound("VM", name));
    Instant now = clock.instant();
    String caller = Caller.of(http).name();
    String token = Tokens.generate();
    Instant expires = now.plusSeconds(seconds);
    tokens.deleteByExpiresAtLessThan(now);
    tokens.save(
        new VmAccessTokenRow(Tokens.hash(token), vm.name(), vm.seq(), caller, now, expires));
    log.info("access token for vm {} made by {}, until {}", name, caller, expires);
    return new AccessTokenView(vm.name(), token, expires);
  }
}
