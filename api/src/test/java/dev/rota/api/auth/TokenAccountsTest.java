package dev.rota.api.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rota.store.ServiceAccountRepository;
import dev.rota.store.ServiceAccountRow;
import java.lang.reflect.Proxy;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class TokenAccountsTest {
  private final Map<String, ServiceAccountRow> rows = new HashMap<>();
  private final AtomicInteger lookups = new AtomicInteger();
  private final AtomicLong nanos = new AtomicLong();
  private Runnable duringLookup = () -> {};
  private final TokenAccounts tokens = new TokenAccounts(repository(), nanos::get);

  /** The repository as the lookup uses it: by token hash, counted. */
  private ServiceAccountRepository repository() {
    return (ServiceAccountRepository)
        Proxy.newProxyInstance(
            getClass().getClassLoader(),
            new Class<?>[] {ServiceAccountRepository.class},
            (proxy, method, args) -> {
              if (!method.getName().equals("findByTokenHash")) {
                throw new UnsupportedOperationException(method.getName());
              }
              lookups.incrementAndGet();
              Optional<ServiceAccountRow> row = Optional.ofNullable(rows.get((String) args[0]));
              duringLookup.run();
              return row;
            });
  }

  private String account(String name) {
    String hash = Tokens.hash(Tokens.generate());
    rows.put(
        hash,
        new ServiceAccountRow(
            name, hash, List.of("compute:read"), java.util.Map.of(), null, Instant.EPOCH));
    return hash;
  }

  @Test
  void anAccountFoundIsKeptForItsWhileThenLookedUpAgain() {
    String hash = account("ci");
    assertEquals("ci", tokens.byTokenHash(hash).orElseThrow().name());
    nanos.addAndGet(TokenAccounts.KEPT.toNanos() - 1);
    assertEquals("ci", tokens.byTokenHash(hash).orElseThrow().name());
    assertEquals(1, lookups.get(), "a burst within the while costs one lookup");

    rows.clear(); // deleted on another host
    nanos.addAndGet(1);
    assertTrue(tokens.byTokenHash(hash).isEmpty(), "past the while the token is refused");
    assertEquals(2, lookups.get());
  }

  @Test
  void aTokenOfNoAccountIsLookedUpEveryTime() {
    String hash = Tokens.hash(Tokens.generate());
    assertTrue(tokens.byTokenHash(hash).isEmpty());
    rows.put(
        hash,
        new ServiceAccountRow("new", hash, List.of(), java.util.Map.of(), null, Instant.EPOCH));
    assertEquals("new", tokens.byTokenHash(hash).orElseThrow().name(), "a new token works at once");
    assertEquals(2, lookups.get());
  }

  @Test
  void aChangeMadeHereForgetsEveryAccountKept() {
    String hash = account("ci");
    tokens.byTokenHash(hash);
    rows.clear();
    tokens.changed();
    assertTrue(tokens.byTokenHash(hash).isEmpty(), "deleted here: refused at once");
  }

  @Test
  void aLookupThatAChangeOvertookKeepsNothing() {
    String hash = account("ci");
    duringLookup = tokens::changed; // the account changed while its old row was being read
    tokens.byTokenHash(hash);
    duringLookup = () -> {};
    tokens.byTokenHash(hash);
    assertEquals(2, lookups.get(), "the row read before the change was not kept");
  }
}
