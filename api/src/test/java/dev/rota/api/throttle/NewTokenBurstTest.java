package dev.rota.api.throttle;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rota.api.Http;
import io.micronaut.context.annotation.Property;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import jakarta.inject.Inject;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A new token's first burst, sent at once from several threads before any of its requests has
 * authenticated, is its burst: bursts of 10, one request in 100 s after (no refill mid-test).
 */
@MicronautTest(transactional = false)
@Property(name = "rota.auth.enabled", value = "true")
@Property(name = "rota.auth.bootstrap-admin-token", value = NewTokenBurstTest.ADMIN)
@Property(name = "rota.api.rate-limit", value = "0.01")
@Property(name = "rota.api.rate-burst", value = "10")
class NewTokenBurstTest {
  static final String ADMIN = "burst-admin-token-0123456789abcdef";

  @Inject Http http;
  @Inject dev.rota.api.auth.AdminBootstrap bootstrap;

  @Test
  void fortyRequestsFromEightThreadsOfANewTokenGetItsBurstOfTen() throws Exception {
    bootstrap.ensureAdmin();
    Http.Reply account =
        http.send(
            "POST",
            "/v1/service-accounts",
            "{\"name\":\"burst\",\"roles\":[\"compute:read\"]}",
            ADMIN);
    assertEquals(201, account.status(), account.toString());
    String token = (String) account.map().get("token");

    AtomicInteger accepted = new AtomicInteger();
    AtomicInteger refused = new AtomicInteger();
    ExecutorService threads = Executors.newFixedThreadPool(8);
    try {
      List<Future<?>> sent = new ArrayList<>();
      for (int t = 0; t < 8; t++) {
        sent.add(
            threads.submit(
                () -> {
                  for (int i = 0; i < 5; i++) {
                    int status = http.send("GET", "/v1/vms", null, token).status();
                    (status == 200 ? accepted : refused).incrementAndGet();
                  }
                  return null;
                }));
      }
      for (Future<?> f : sent) {
        f.get();
      }
    } finally {
      threads.shutdownNow();
    }
    assertEquals(40, accepted.get() + refused.get());
    assertTrue(
        accepted.get() <= 10,
        accepted.get()
            + " accepted: its first requests, counted as its address's, were its own too");
    assertTrue(accepted.get() >= 1, "some went through");
  }
}
