package dev.rota.api.auth;

import dev.rota.store.ServiceAccountRepository;
import dev.rota.store.ServiceAccountRow;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * The service account a token belongs to. An account found is kept for {@link #KEPT}, so that a
 * client's burst of requests costs one lookup, not one each: a lookup costs the host as much as a
 * tenth of the rest of a request. A token that finds no account is looked up again each time (a new
 * account's token works at once on every host), and any change of accounts made through this host
 * forgets everything kept: on this host a deleted account's token stops at once, on the others
 * within {@link #KEPT}.
 */
@Singleton
public class TokenAccounts {
  public static final Duration KEPT = Duration.ofSeconds(2);

  private record Found(ServiceAccountRow account, long atNanos) {}

  private final ServiceAccountRepository accounts;
  private final LongSupplier nanos;
  private final Map<String, Found> found = new ConcurrentHashMap<>();

  /**
   * Counts the changes forgotten: a lookup that began before one keeps nothing, as the account it
   * read may be the one just changed.
   */
  private final AtomicLong changes = new AtomicLong();

  @Inject
  public TokenAccounts(ServiceAccountRepository accounts) {
    this(accounts, System::nanoTime);
  }

  TokenAccounts(ServiceAccountRepository accounts, LongSupplier nanos) {
    this.accounts = accounts;
    this.nanos = nanos;
  }

  /** The account whose token hashes to {@code hash}, if any. */
  public Optional<ServiceAccountRow> byTokenHash(String hash) {
    long now = nanos.getAsLong();
    Found kept = found.get(hash);
    if (kept != null && now - kept.atNanos() < KEPT.toNanos()) {
      return Optional.of(kept.account());
    }
    long before = changes.get();
    Optional<ServiceAccountRow> account =
        accounts.findByTokenHash(hash).filter(a -> Tokens.sameHash(a.tokenHash(), hash));
    if (account.isPresent()) {
      found.put(hash, new Found(account.get(), now));
      if (changes.get() != before) {
        found.remove(hash);
      }
    } else {
      found.remove(hash);
    }
    return account;
  }

  /** After an account was created, changed or deleted here: every token is looked up afresh. */
  public void changed() {
    changes.incrementAndGet();
    found.clear();
  }
}
