package dev.rota.api.throttle;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rota.api.Http;
import io.micronaut.context.annotation.Property;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

/**
 * Each caller's rate: a burst of 3, then one request in 100 s (so that no pause of the machine
 * refills a bucket mid-test). One walk through, since the address's bucket is shared by all of it.
 */
@MicronautTest(transactional = false)
@Property(name = "rota.auth.enabled", value = "true")
@Property(name = "rota.auth.bootstrap-admin-token", value = RequestLimitTest.ADMIN)
@Property(name = "rota.api.rate-limit", value = "0.01")
@Property(name = "rota.api.rate-burst", value = "3")
class RequestLimitTest {
  static final String ADMIN = "limit-admin-token-0123456789abcdef";

  @Inject Http http;
  @Inject dev.rota.api.auth.AdminBootstrap bootstrap;

  @Test
  void
      aTokenPastItsBurstIsA429WithRetryAfterThatChangesNothingAndMadeUpTokensShareTheirAddresssBucket() {
    bootstrap.ensureAdmin();
    // A token not yet seen to authenticate is its address's, and its own: 1 of the address's 3,
    // 1 of its own 3.
    Http.Reply account =
        http.send(
            "POST",
            "/v1/service-accounts",
            "{\"name\":\"other\",\"roles\":[\"compute:read\"]}",
            ADMIN);
    assertEquals(201, account.status(), account.toString());
    String other = (String) account.map().get("token");
    // The admin's own bucket alone from now on: 2 left.
    assertEquals(200, http.send("GET", "/v1/vms", null, ADMIN).status());
    assertEquals(200, http.send("GET", "/v1/workers", null, ADMIN).status());

    Http.Reply refused =
        http.send("POST", "/v1/vms", "{\"name\":\"too-many\",\"command\":[\"true\"]}", ADMIN);
    assertEquals(429, refused.status(), refused.toString());
    assertTrue(refused.isProblem(), refused.toString());
    assertTrue(
        refused.detail().contains("this token sent more than its share: bursts of 3"),
        refused.detail());
    assertEquals("100", refused.header("Retry-After"), "one request in 100 s");

    // The other token: its address's (2 of 3) and its own, then its own alone.
    assertEquals(
        404,
        http.send("GET", "/v1/vms/too-many", null, other).status(),
        "the refused VM was not created");
    assertEquals(
        404,
        http.send("GET", "/v1/vms/too-many", null, other).status(),
        "a token has its own bucket");
    assertEquals(200, http.get("/health").status(), "the health check is never limited");

    // Made-up tokens are the address's (3 of 3), and are refused before the database is asked.
    assertEquals(401, http.send("GET", "/v1/vms", null, "made-up-1").status());
    Http.Reply madeUp = http.send("GET", "/v1/vms", null, "made-up-2");
    assertEquals(429, madeUp.status(), madeUp.toString());
    assertTrue(madeUp.detail().contains("this address (without a known token)"), madeUp.detail());
  }
}
