package dev.rota.api.auth;

import dev.rota.store.ServiceAccountRepository;
import dev.rota.store.ServiceAccountRow;
import jakarta.inject.Singleton;
import java.time.Clock;
import java.util.List;
import java.util.Optional;
import java.util.stream.StreamSupport;

/** The first admin, so that a new installation with auth on can be administered at all. */
@Singleton
public class AdminBootstrap {
  static final String NAME = "bootstrap-admin";
  static final List<String> ROLES =
      List.of(
          Role.ADMIN_READ.wireName(),
          Role.ADMIN_WRITE.wireName(),
          Role.COMPUTE_READ.wireName(),
          Role.COMPUTE_WRITE.wireName(),
          Role.COMPUTE_CONNECT.wireName(),
          Role.SECRETS_WRITE.wireName(),
          Role.SECRETS_USE.wireName());

  private final ServiceAccountRepository accounts;
  private final AuthSettings settings;
  private final Clock clock;

  public AdminBootstrap(ServiceAccountRepository accounts, AuthSettings settings, Clock clock) {
    this.accounts = accounts;
    this.settings = settings;
    this.clock = clock;
  }

  /**
   * With {@code ROTA_BOOTSTRAP_ADMIN_TOKEN}, makes {@code bootstrap-admin} hold that token. Without
   * it, and with no admin yet, creates one with a new token and returns it, to be printed this
   * once.
   */
  public Optional<String> ensureAdmin() {
    String given = settings.bootstrapAdminToken();
    if (given != null && !given.isBlank()) {
      if (given.length() < 20) {
        throw new IllegalArgumentException(
            "ROTA_BOOTSTRAP_ADMIN_TOKEN is too short: use at least 20 random characters");
      }
      accounts.findById(NAME).ifPresent(accounts::delete);
      accounts.save(
          new ServiceAccountRow(
              NAME, Tokens.hash(given), ROLES, java.util.Map.of(), null, clock.instant()));
      return Optional.empty();
    }
    boolean adminExists =
        StreamSupport.stream(accounts.findAll().spliterator(), false)
            .anyMatch(a -> a.roles().contains(Role.ADMIN_WRITE.wireName()));
    if (adminExists) {
      return Optional.empty();
    }
    String token = Tokens.generate();
    accounts.save(
        new ServiceAccountRow(
            NAME, Tokens.hash(token), ROLES, java.util.Map.of(), null, clock.instant()));
    return Optional.of(token);
  }
}
