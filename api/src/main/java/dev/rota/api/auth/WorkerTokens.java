package dev.rota.api.auth;

import dev.rota.store.ServiceAccountRepository;
import dev.rota.store.ServiceAccountRow;
import jakarta.inject.Singleton;
import java.time.Clock;
import java.util.List;

/** Worker-scoped tokens for agents the host starts itself (dev mode with auth on). */
@Singleton
public class WorkerTokens {
  private final ServiceAccountRepository accounts;
  private final Clock clock;
  private final TokenAccounts tokens;

  public WorkerTokens(ServiceAccountRepository accounts, Clock clock, TokenAccounts tokens) {
    this.accounts = accounts;
    this.clock = clock;
    this.tokens = tokens;
  }

  /** A new token for account {@code agent-<worker>}, replacing any it had. */
  public String issue(String worker) {
    String name = "agent-" + worker;
    accounts.findById(name).ifPresent(accounts::delete);
    String token = Tokens.generate();
    accounts.save(
        new ServiceAccountRow(
            name,
            Tokens.hash(token),
            List.of(Role.WORKER.wireName()),
            java.util.Map.of(),
            worker,
            clock.instant()));
    tokens.changed();
    return token;
  }
}
