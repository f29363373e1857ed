package dev.rota.api.auth;

import dev.rota.api.throttle.Callers;
import dev.rota.store.VmAccessTokenRepository;
import dev.rota.store.VmAccessTokenRow;
import dev.rota.store.VmRepository;
import io.micronaut.http.HttpMethod;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpStatus;
import jakarta.inject.Singleton;
import java.time.Clock;
import java.util.EnumSet;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A VM's access token, as a bearer token that is no account's: it opens that VM's sockets (port
 * forward, console, exec) and reads that VM, until it expires, and nothing else.
 */
@Singleton
public class VmTokens {
  /** A VM's own paths a token of it opens: the VM itself (read) and its sockets. */
  private static final Pattern OWN =
      Pattern.compile("^/v1/vms/([^/]+)(/(ports/[^/]+/forward|console|exec))?$");

  /** Why a request was refused. */
  public record Refusal(HttpStatus status, String detail) {}

  private final VmAccessTokenRepository tokens;
  private final VmRepository vms;
  private final Callers callers;
  private final Clock clock;

  public VmTokens(VmAccessTokenRepository tokens, VmRepository vms, Callers callers, Clock clock) {
    this.tokens = tokens;
    this.vms = vms;
    this.callers = callers;
    this.clock = clock;
  }

  /**
   * Empty when the token {@code hash} is a live token of the VM the request is about, which it then
   * may go on with; else why not.
   */
  Optional<Refusal> admit(HttpRequest<?> request, String hash) {
    Optional<VmAccessTokenRow> found =
        tokens.findById(hash).filter(t -> Tokens.sameHash(t.tokenHash(), hash));
    if (found.isEmpty()) {
      return Optional.of(
          new Refusal(
              HttpStatus.UNAUTHORIZED,
              "the bearer token is not valid (unknown, or its account was deleted)"));
    }
    VmAccessTokenRow token = found.get();
    if (!clock.instant().isBefore(token.expiresAt())) {
      return Optional.of(
          new Refusal(
              HttpStatus.UNAUTHORIZED,
              "this access token for VM " + token.vm() + " expired at " + token.expiresAt()));
    }
    callers.authenticated(hash);
    Matcher own = OWN.matcher(request.getPath());
    boolean read = own.matches() && own.group(2) == null;
    if (!own.matches()
        || !own.group(1).equals(token.vm())
        || (read && request.getMethod() != HttpMethod.GET)) {
      return Optional.of(
          new Refusal(
              HttpStatus.FORBIDDEN,
              "an access token for VM "
                  + token.vm()
                  + " opens that VM's port-forward, console and exec alone"));
    }
    if (vms.findById(token.vm()).filter(v -> v.seq() == token.vmSeq()).isEmpty()) {
      return Optional.of(
          new Refusal(
              HttpStatus.FORBIDDEN,
              "this access token was for VM "
                  + token.vm()
                  + " as it was when the token was made, which was deleted since"));
    }
    request.setAttribute(
        Caller.ATTRIBUTE,
        new Caller(
            "access token for vm " + token.vm(),
            EnumSet.of(Role.COMPUTE_CONNECT, Role.COMPUTE_READ),
            java.util.Map.of(),
            null));
    return Optional.empty();
  }
}
