package dev.rota.api.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.micronaut.http.exceptions.HttpStatusException;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Which roles a caller holds where: in every namespace, in one, or nowhere. */
class CallerTest {
  private final Caller caller =
      new Caller(
          "ci",
          EnumSet.of(Role.COMPUTE_READ),
          Map.of(
              "team-a", EnumSet.of(Role.COMPUTE_WRITE, Role.SECRETS_USE),
              "team-b", EnumSet.of(Role.COMPUTE_WRITE)),
          null);

  record Case(String namespace, Role role, boolean holds) {}

  @Test
  void holdsARoleEverywhereOrInItsNamespaces() {
    for (Case c :
        List.of(
            new Case("team-a", Role.COMPUTE_READ, true), // everywhere
            new Case("default", Role.COMPUTE_READ, true),
            new Case("team-a", Role.COMPUTE_WRITE, true), // there
            new Case("team-b", Role.COMPUTE_WRITE, true),
            new Case("default", Role.COMPUTE_WRITE, false), // not there
            new Case("team-b", Role.SECRETS_USE, false),
            new Case("team-a", Role.ADMIN_WRITE, false))) {
      assertEquals(c.holds(), caller.holds(c.namespace(), c.role()), c.toString());
    }
    assertEquals(true, caller.holds("default", Role.COMPUTE_WRITE, Role.COMPUTE_READ), "any of");
    assertEquals(false, caller.holdsEverywhere(Role.COMPUTE_WRITE));
    assertEquals(Set.of("team-a", "team-b"), caller.namespacesHolding(Role.COMPUTE_WRITE));
    assertEquals(Set.of(), caller.namespacesHolding(Role.ADMIN_READ));
  }

  @Test
  void aRefusalNamesTheNamespaceAndWhereTheRoleIsHeld() {
    HttpStatusException refused =
        assertThrows(
            HttpStatusException.class, () -> caller.require("default", Role.COMPUTE_WRITE));
    assertEquals(403, refused.getStatus().getCode());
    assertEquals(
        "account ci lacks compute:write in namespace default (it holds it in team-a, team-b)",
        refused.getMessage());
    caller.require("team-a", Role.COMPUTE_WRITE);
  }
}
