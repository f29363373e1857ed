package dev.rota.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rota.api.auth.AdminBootstrap;
import dev.rota.store.ServiceAccountRepository;
import io.micronaut.context.annotation.Property;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import jakarta.inject.Inject;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Auth on: every role against every endpoint, and worker tokens kept to their worker. */
// Not transactional: the accounts set up here must be visible to the server's request threads.
@MicronautTest(transactional = false)
@Property(name = "rota.auth.enabled", value = "true")
@Property(name = "rota.auth.bootstrap-admin-token", value = AuthApiTest.ADMIN)
class AuthApiTest {
  static final String ADMIN = "test-admin-token-0123456789abcdef";

  @Inject Http http;
  @Inject io.micronaut.runtime.server.EmbeddedServer server;
  @Inject AdminBootstrap bootstrap;
  @Inject ServiceAccountRepository accounts;

  private final Map<String, String> tokens = new HashMap<>();
  private static int serial;

  /** A call, and the roles that may make it. */
  record Call(String method, String path, String body, Set<String> roles) {}

  static final List<Call> TABLE =
      List.of(
          new Call(
              "POST",
              "/v1/service-accounts",
              "{\"name\":\"acct-%d\",\"roles\":[\"compute:read\"]}",
              Set.of("admin:write")),
          new Call("GET", "/v1/service-accounts", null, Set.of("admin:read")),
          new Call("GET", "/v1/service-accounts/bootstrap-admin", null, Set.of("admin:read")),
          new Call("DELETE", "/v1/service-accounts/nobody", null, Set.of("admin:write")),
          new Call(
              "POST",
              "/v1/workers",
              "{\"name\":\"mini-1\",\"endpoint\":\"http://127.0.0.1:9101\"}",
              Set.of("worker", "admin:write")),
          new Call("GET", "/v1/workers", null, Set.of("compute:read")),
          new Call("GET", "/v1/workers/mini-1", null, Set.of("compute:read", "worker")),
          new Call("PUT", "/v1/workers/mini-1/heartbeat", null, Set.of("worker")),
          new Call("PUT", "/v1/workers/mini-1/tasks", "{\"tasks\":[]}", Set.of("worker")),
          new Call(
              "PATCH",
              "/v1/workers/mini-1",
              "{\"schedulingPaused\":false}",
              Set.of("compute:write")),
          new Call("DELETE", "/v1/workers/nobody", null, Set.of("admin:write")),
          new Call(
              "POST",
              "/v1/vms",
              "{\"name\":\"vm-%d\",\"command\":[\"true\"]}",
              Set.of("compute:write")),
          new Call("GET", "/v1/vms?worker=mini-1", null, Set.of("compute:read", "worker")),
          new Call("GET", "/v1/vms/nobody", null, Set.of("compute:read")),
          new Call("GET", "/v1/vms/nobody/events", null, Set.of("compute:read")),
          new Call("GET", "/v1/vms/nobody/logs", null, Set.of("compute:read")),
          new Call("POST", "/v1/vms/nobody/stop", null, Set.of("compute:write")),
          // A socket into a VM (a port, the console, a command): its opening needs a role of its
          // own.
          new Call("GET", "/v1/vms/nobody/ports/web/forward", null, Set.of("compute:connect")),
          new Call("GET", "/v1/vms/nobody/console", null, Set.of("compute:connect")),
          new Call("GET", "/v1/vms/nobody/exec?command=true", null, Set.of("compute:connect")),
          new Call("POST", "/v1/vms/nobody/start", null, Set.of("compute:write")),
          new Call("POST", "/v1/vms/nobody/restart", null, Set.of("compute:write")),
          new Call("POST", "/v1/vms/nobody/suspend", null, Set.of("compute:write")),
          new Call("DELETE", "/v1/vms/nobody", null, Set.of("compute:write")),
          new Call(
              "POST",
              "/v1/secrets",
              "{\"name\":\"secret-%d\",\"value\":\"v\"}",
              Set.of("secrets:write")),
          new Call("PUT", "/v1/secrets/nobody", "{\"value\":\"v\"}", Set.of("secrets:write")),
          new Call("DELETE", "/v1/secrets/nobody", null, Set.of("secrets:write")),
          new Call("GET", "/v1/secrets", null, Set.of("secrets:write", "secrets:use")),
          new Call("GET", "/v1/secrets/nobody", null, Set.of("secrets:write", "secrets:use")),
          new Call("PUT", "/v1/namespaces/ns-auth", "{}", Set.of("admin:write")),
          new Call("GET", "/v1/namespaces", null, Set.of("compute:read", "admin:read")),
          new Call("GET", "/v1/namespaces/nobody", null, Set.of("compute:read", "admin:read")),
          new Call("DELETE", "/v1/namespaces/nobody", null, Set.of("admin:write")),
          new Call(
              "POST",
              "/v1/templates",
              "{\"name\":\"template-%d\",\"spec\":{\"command\":[\"true\"]}}",
              Set.of("compute:write")),
          new Call("GET", "/v1/templates", null, Set.of("compute:read")),
          new Call("GET", "/v1/templates/nobody", null, Set.of("compute:read")),
          new Call("DELETE", "/v1/templates/nobody", null, Set.of("compute:write")),
          new Call("POST", "/v1/templates/nobody/dispatch", "{}", Set.of("compute:write")),
          new Call("POST", "/v1/schedules", "{}", Set.of("compute:write")),
          new Call("GET", "/v1/schedules", null, Set.of("compute:read")),
          new Call("GET", "/v1/schedules/nobody", null, Set.of("compute:read")),
          new Call("POST", "/v1/schedules/nobody/pause", null, Set.of("compute:write")),
          new Call("POST", "/v1/schedules/nobody/resume", null, Set.of("compute:write")),
          new Call("POST", "/v1/schedules/nobody/trigger", null, Set.of("compute:write")),
          new Call("DELETE", "/v1/schedules/nobody", null, Set.of("compute:write")),
          new Call("GET", "/v1/cluster", null, Set.of("compute:read")),
          new Call("GET", "/v1/cluster-settings", null, Set.of("admin:read")),
          new Call(
              "PUT",
              "/v1/cluster-settings",
              "{\"schedulerProfile\":\"optimize-utilization\"}",
              Set.of("admin:write")));

  @BeforeEach
  void accounts() {
    bootstrap.ensureAdmin();
    for (String role :
        List.of(
            "compute:read",
            "compute:write",
            "compute:connect",
            "admin:read",
            "admin:write",
            "secrets:write",
            "secrets:use",
            "worker")) {
      String name = "role-" + role.replace(':', '-') + "-" + (++serial);
      String body =
          "{\"name\":\""
              + name
              + "\",\"roles\":[\""
              + role
              + "\"]"
              + (role.equals("worker") ? ",\"worker\":\"mini-1\"" : "")
              + "}";
      Http.Reply created = http.send("POST", "/v1/service-accounts", body, ADMIN);
      assertEquals(201, created.status(), created.toString());
      tokens.put(role, (String) created.map().get("token"));
    }
  }

  private Http.Reply call(Call c, String token) {
    return http.send(
        c.method(), c.path(), c.body() == null ? null : String.format(c.body(), ++serial), token);
  }

  @Test
  void everyRoleAgainstEveryEndpoint() {
    for (Call c : TABLE) {
      Http.Reply anonymous = call(c, null);
      assertEquals(401, anonymous.status(), c + " without a token");
      assertTrue(anonymous.isProblem());
      assertEquals(401, call(c, "rota_not-a-real-token").status(), c + " with a bad token");
      for (Map.Entry<String, String> role : tokens.entrySet()) {
        Http.Reply r = call(c, role.getValue());
        if (c.roles().contains(role.getKey())) {
          assertFalse(
              r.status() == 401 || r.status() == 403, c + " as " + role.getKey() + " -> " + r);
        } else {
          assertEquals(403, r.status(), c + " as " + role.getKey() + " -> " + r);
          assertTrue(
              r.isProblem() && r.detail().contains(c.roles().iterator().next().split(":")[0]),
              r.toString());
        }
      }
    }
    assertEquals(200, http.send("GET", "/health", null, null).status(), "health needs no token");
  }

  /**
   * A port-forward's socket is opened by an upgrade: the token is checked on it as on any call, and
   * only compute:connect opens one (which then says why there is nothing to forward to).
   */
  @Test
  void aPortForwardsSocketOpensOnlyForComputeConnect() throws Exception {
    java.net.URI socket =
        java.net.URI.create(
            server.getURL().toString().replaceFirst("^http", "ws")
                + "/v1/vms/nobody/ports/web/forward");
    for (String token : new String[] {null, tokens.get("compute:write")}) {
      java.util.concurrent.CompletionException refused =
          org.junit.jupiter.api.Assertions.assertThrows(
              java.util.concurrent.CompletionException.class,
              () -> open(socket, token, new java.util.concurrent.CompletableFuture<>()));
      assertTrue(
          refused.getCause() instanceof java.net.http.WebSocketHandshakeException h
              && h.getResponse().statusCode() == (token == null ? 401 : 403),
          String.valueOf(refused.getCause()));
    }
    java.util.concurrent.CompletableFuture<String> closed =
        new java.util.concurrent.CompletableFuture<>();
    open(socket, tokens.get("compute:connect"), closed);
    assertEquals("4404 no vm nobody", closed.get(30, java.util.concurrent.TimeUnit.SECONDS));
  }

  private static java.net.http.WebSocket open(
      java.net.URI uri, String token, java.util.concurrent.CompletableFuture<String> closed) {
    java.net.http.WebSocket.Builder b =
        java.net.http.HttpClient.newHttpClient().newWebSocketBuilder();
    if (token != null) {
      b.header("Authorization", "Bearer " + token);
    }
    return b.buildAsync(
            uri,
            new java.net.http.WebSocket.Listener() {
              @Override
              public java.util.concurrent.CompletionStage<?> onClose(
                  java.net.http.WebSocket ws, int code, String reason) {
                closed.complete(code + " " + reason);
                return null;
              }
            })
        .join();
  }

  @Inject dev.rota.store.VmAccessTokenRepository vmTokens;

  /**
   * A VM's access token opens that VM's sockets and its read alone, until it expires, and not a VM
   * made again under its name.
   */
  @Test
  void aVmsAccessTokenOpensThatVmAloneUntilItExpires() {
    for (String vm : List.of("box-a", "box-b")) {
      assertEquals(
          201,
          http.send(
                  "POST",
                  "/v1/vms",
                  "{\"name\":\"" + vm + "\",\"command\":[\"sleep\",\"60\"]}",
                  ADMIN)
              .status());
    }
    assertEquals(
        403,
        http.send("POST", "/v1/vms/box-a/access-tokens", "{}", tokens.get("compute:write"))
            .status(),
        "making one takes compute:connect");
    Http.Reply made =
        http.send(
            "POST",
            "/v1/vms/box-a/access-tokens",
            "{\"ttl\":\"1h\"}",
            tokens.get("compute:connect"));
    assertEquals(201, made.status(), made.toString());
    String token = (String) made.map().get("token");
    for (String path :
        List.of(
            "/v1/vms/box-a",
            "/v1/vms/box-a/console",
            "/v1/vms/box-a/exec?command=true",
            "/v1/vms/box-a/ports/web/forward")) {
      int status = http.send("GET", path, null, token).status();
      assertTrue(status != 401 && status != 403, path + " with its VM's token: " + status);
    }
    for (String[] call :
        List.of(
            new String[] {"GET", "/v1/vms/box-b/console"},
            new String[] {"GET", "/v1/vms/box-b"},
            new String[] {"GET", "/v1/vms"},
            new String[] {"DELETE", "/v1/vms/box-a"},
            new String[] {"POST", "/v1/vms/box-a/stop"},
            new String[] {"POST", "/v1/vms/box-a/access-tokens"})) {
      Http.Reply r = http.send(call[0], call[1], null, token);
      assertEquals(403, r.status(), call[0] + " " + call[1] + " -> " + r);
      assertTrue(r.detail().contains("box-a"), r.toString());
    }
    // The sockets themselves, opened by an upgrade: its VM's opens (and says there is nothing to
    // forward to), another's is refused at the handshake.
    String ws = server.getURL().toString().replaceFirst("^http", "ws");
    java.util.concurrent.CompletableFuture<String> closed =
        new java.util.concurrent.CompletableFuture<>();
    open(java.net.URI.create(ws + "/v1/vms/box-a/ports/web/forward"), token, closed);
    try {
      assertTrue(
          closed.get(30, java.util.concurrent.TimeUnit.SECONDS).startsWith("44"),
          "opened, then closed by the relay: " + closed.getNow(""));
    } catch (Exception e) {
      throw new AssertionError(e);
    }
    java.util.concurrent.CompletionException other =
        org.junit.jupiter.api.Assertions.assertThrows(
            java.util.concurrent.CompletionException.class,
            () ->
                open(
                    java.net.URI.create(ws + "/v1/vms/box-b/ports/web/forward"),
                    token,
                    new java.util.concurrent.CompletableFuture<>()));
    assertTrue(
        other.getCause() instanceof java.net.http.WebSocketHandshakeException h
            && h.getResponse().statusCode() == 403,
        String.valueOf(other.getCause()));
    assertEquals(
        400,
        http.send(
                "POST",
                "/v1/vms/box-a/access-tokens",
                "{\"ttl\":\"2d\"}",
                tokens.get("compute:connect"))
            .status(),
        "24h at most");

    dev.rota.store.VmAccessTokenRow row =
        vmTokens.findById(dev.rota.api.auth.Tokens.hash(token)).orElseThrow();
    vmTokens.update(
        new dev.rota.store.VmAccessTokenRow(
            row.tokenHash(),
            row.vm(),
            row.vmSeq(),
            row.createdBy(),
            row.createdAt(),
            java.time.Instant.now().minusSeconds(1)));
    Http.Reply expired = http.send("GET", "/v1/vms/box-a/console", null, token);
    assertEquals(401, expired.status(), expired.toString());
    assertTrue(expired.detail().contains("expired"), expired.toString());
    vmTokens.update(row);

    // The same name made again is another VM.
    vmTokens.update(
        new dev.rota.store.VmAccessTokenRow(
            row.tokenHash(),
            row.vm(),
            row.vmSeq() - 1,
            row.createdBy(),
            row.createdAt(),
            row.expiresAt()));
    assertEquals(403, http.send("GET", "/v1/vms/box-a/console", null, token).status());
  }

  /** Referring to a secret takes secrets:use beside compute:write; nothing is stored without. */
  @Test
  void aVmThatRefersToASecretTakesSecretsUse() {
    assertEquals(
        201,
        http.send("POST", "/v1/secrets", "{\"name\":\"used\",\"value\":\"v\"}", ADMIN).status());
    String both =
        (String)
            http.send(
                    "POST",
                    "/v1/service-accounts",
                    "{\"name\":\"ci-"
                        + (++serial)
                        + "\",\"roles\":[\"compute:write\",\"secrets:use\"]}",
                    ADMIN)
                .map()
                .get("token");
    String vm =
        "{\"name\":\"uses-%s\",\"command\":[\"true\"],"
            + "\"env\":{\"TOKEN\":{\"secretRef\":\"used\"}}}";
    Http.Reply refused =
        http.send("POST", "/v1/vms", String.format(vm, "a"), tokens.get("compute:write"));
    assertEquals(403, refused.status(), refused.toString());
    assertTrue(refused.detail().contains("secrets:use"), refused.toString());
    assertEquals(404, http.send("GET", "/v1/vms/uses-a", null, ADMIN).status(), "nothing stored");
    Http.Reply made = http.send("POST", "/v1/vms", String.format(vm, "b"), both);
    assertEquals(201, made.status(), made.toString());
  }

  /**
   * An account holding roles in one namespace reaches that namespace's VMs, sets, templates and
   * secrets, and nothing of another's nor anything cluster-wide; each refusal names the namespace.
   */
  @Test
  void rolesInANamespaceReachItsObjectsAlone() {
    int id = ++serial;
    String ns = "team-" + id;
    assertEquals(200, http.send("PUT", "/v1/namespaces/" + ns, "{}", ADMIN).status());
    for (String[] home : new String[][] {{ns, "in"}, {"default", "out"}}) {
      String namespace = ",\"namespace\":\"" + home[0] + "\"";
      String name = home[1] + "-" + id;
      for (String[] made :
          new String[][] {
            {"/v1/vms", "{\"name\":\"vm-" + name + "\",\"command\":[\"sleep\",\"60\"]"},
            {
              "/v1/vm-sets",
              "{\"name\":\"set-"
                  + name
                  + "\",\"replicas\":0,"
                  + "\"template\":{\"command\":[\"true\"]}"
            },
            {"/v1/templates", "{\"name\":\"tpl-" + name + "\",\"spec\":{\"command\":[\"true\"]}"},
            {"/v1/secrets", "{\"name\":\"sec-" + name + "\",\"value\":\"v\""}
          }) {
        Http.Reply r = http.send("POST", made[0], made[1] + namespace + "}", ADMIN);
        assertEquals(201, r.status(), made[0] + " -> " + r);
      }
    }
    String team =
        (String)
            http.send(
                    "POST",
                    "/v1/service-accounts",
                    "{\"name\":\"team-acct-"
                        + serial
                        + "\",\"namespaceRoles\":{\""
                        + ns
                        + "\":[\"compute:read\",\"compute:write\",\"compute:connect\","
                        + "\"secrets:write\",\"secrets:use\"]}}",
                    ADMIN)
                .map()
                .get("token");
    for (String path :
        List.of(
            "GET /v1/vms/vm-%s",
            "GET /v1/vms/vm-%s/events",
            "GET /v1/vms/vm-%s/logs",
            "PUT /v1/vms/vm-%s/lease",
            "POST /v1/vms/vm-%s/snapshot",
            "POST /v1/vms/vm-%s/access-tokens",
            "GET /v1/vms/vm-%s/console",
            "GET /v1/vm-sets/set-%s",
            "GET /v1/vm-sets/set-%s/versions",
            "PATCH /v1/vm-sets/set-%s",
            "GET /v1/templates/tpl-%s",
            "POST /v1/templates/tpl-%s/dispatch",
            "GET /v1/secrets/sec-%s",
            "PUT /v1/secrets/sec-%s")) {
      String[] call = path.split(" ");
      String body = call[0].equals("GET") ? null : "{}";
      Http.Reply own = http.send(call[0], String.format(call[1], "in-" + id), body, team);
      assertFalse(own.status() == 401 || own.status() == 403, path + " in its own: " + own);
      Http.Reply other = http.send(call[0], String.format(call[1], "out-" + id), body, team);
      assertEquals(403, other.status(), path + " in default: " + other);
      assertTrue(other.detail().contains("in namespace default"), other.toString());
    }
    for (String kind : List.of("vms", "vm-sets", "pools", "templates", "secrets")) {
      assertEquals(
          200, http.send("GET", "/v1/" + kind + "?namespace=" + ns, null, team).status(), kind);
      assertEquals(
          403, http.send("GET", "/v1/" + kind + "?namespace=default", null, team).status(), kind);
      Http.Reply every = http.send("GET", "/v1/" + kind, null, team);
      assertEquals(403, every.status(), kind + " of every namespace: " + every);
      assertTrue(every.detail().contains("?namespace=" + ns), every.toString());
    }
    // What it makes goes in its namespace only, a secret of its own referred to.
    String vm =
        "{\"name\":\"made-%s\",\"command\":[\"true\"],%s"
            + "\"env\":{\"T\":{\"secretRef\":\"sec-in-"
            + id
            + "\"}}}";
    Http.Reply made =
        http.send("POST", "/v1/vms", String.format(vm, "a", "\"namespace\":\"" + ns + "\","), team);
    assertEquals(201, made.status(), made.toString());
    for (String where : List.of("", "\"namespace\":\"default\",")) {
      Http.Reply refused = http.send("POST", "/v1/vms", String.format(vm, "b", where), team);
      assertEquals(403, refused.status(), refused.toString());
      assertTrue(refused.detail().contains("in namespace default"), refused.toString());
    }
    Http.Reply batch =
        http.send(
            "POST",
            "/v1/vms/batch",
            "{\"items\":[{\"name\":\"batch-a\",\"command\":[\"true\"],\"namespace\":\""
                + ns
                + "\"},{\"name\":\"batch-b\",\"command\":[\"true\"]}]}",
            team);
    assertEquals(403, batch.status(), batch.toString());
    assertEquals(404, http.send("GET", "/v1/vms/batch-a", null, ADMIN).status(), "none stored");
    for (String[] create :
        new String[][] {
          {
            "/v1/vm-sets",
            "{\"name\":\"s-%d\",\"replicas\":0,\"template\":{\"command\":[\"true\"]}%s}"
          },
          {"/v1/templates", "{\"name\":\"t-%d\",\"spec\":{\"command\":[\"true\"]}%s}"},
          {"/v1/secrets", "{\"name\":\"s-%d\",\"value\":\"v\"%s}"}
        }) {
      String own = String.format(create[1], ++serial, ",\"namespace\":\"" + ns + "\"");
      assertEquals(201, http.send("POST", create[0], own, team).status(), create[0]);
      Http.Reply other = http.send("POST", create[0], String.format(create[1], ++serial, ""), team);
      assertEquals(403, other.status(), create[0] + " in default: " + other);
    }
    assertEquals(200, http.send("GET", "/v1/namespaces/" + ns, null, team).status());
    assertEquals(403, http.send("GET", "/v1/namespaces/default", null, team).status());
    for (String clusterWide : List.of("/v1/cluster", "/v1/workers", "/v1/namespaces")) {
      Http.Reply r = http.send("GET", clusterWide, null, team);
      assertEquals(403, r.status(), clusterWide + " -> " + r);
      assertTrue(r.detail().contains("in every namespace"), r.toString());
    }
    // Reading in a namespace is not writing there.
    String reader =
        (String)
            http.send(
                    "POST",
                    "/v1/service-accounts",
                    "{\"name\":\"reader-"
                        + serial
                        + "\",\"namespaceRoles\":{\""
                        + ns
                        + "\":[\"compute:read\"]}}",
                    ADMIN)
                .map()
                .get("token");
    assertEquals(200, http.send("GET", "/v1/vms/vm-in-" + id, null, reader).status());
    Http.Reply stop = http.send("POST", "/v1/vms/vm-in-" + id + "/stop", null, reader);
    assertEquals(403, stop.status(), stop.toString());
    assertTrue(stop.detail().contains("lacks compute:write in namespace " + ns), stop.toString());
  }

  /** A namespace deleted takes its roles along: one made again under its name grants nothing. */
  @Test
  void aNamespaceDeletedTakesTheRolesHeldInItAlong() {
    String ns = "gone-" + (++serial);
    assertEquals(200, http.send("PUT", "/v1/namespaces/" + ns, "{}", ADMIN).status());
    String body =
        "{\"name\":\"member-%d\",\"namespaceRoles\":{\"%s\":[\"compute:read\"],"
            + "\"default\":[\"compute:read\"]}}";
    Http.Reply made =
        http.send("POST", "/v1/service-accounts", String.format(body, serial, ns), ADMIN);
    assertEquals(201, made.status(), made.toString());
    String token = (String) made.map().get("token");
    assertEquals(200, http.send("GET", "/v1/namespaces/" + ns, null, token).status());

    assertEquals(204, http.send("DELETE", "/v1/namespaces/" + ns, null, ADMIN).status());
    assertEquals(
        Map.of("default", List.of("compute:read")),
        http.send("GET", "/v1/service-accounts/member-" + serial, null, ADMIN)
            .map()
            .get("namespaceRoles"),
        "the roles in the namespace went with it, the others stayed");
    assertEquals(200, http.send("PUT", "/v1/namespaces/" + ns, "{}", ADMIN).status());
    Http.Reply again = http.send("GET", "/v1/namespaces/" + ns, null, token);
    assertEquals(403, again.status(), "made again, it grants nothing: " + again);
    assertEquals(200, http.send("GET", "/v1/namespaces/default", null, token).status());
  }

  @Test
  void aWorkerTokenActsForItsOwnWorkerOnly() {
    String worker = tokens.get("worker");
    int own =
        http.send(
                "POST",
                "/v1/workers",
                "{\"name\":\"mini-1\",\"endpoint\":\"http://127.0.0.1:9101\"}",
                worker)
            .status();
    assertTrue(own == 201 || own == 200, "its own worker: " + own);
    Http.Reply other =
        http.send(
            "POST",
            "/v1/workers",
            "{\"name\":\"mini-2\",\"endpoint\":\"http://127.0.0.1:9102\"}",
            worker);
    assertEquals(403, other.status());
    assertTrue(other.detail().contains("mini-1 only"), other.detail());
    assertEquals(403, http.send("PUT", "/v1/workers/mini-2/heartbeat", null, worker).status());
    assertEquals(204, http.send("PUT", "/v1/workers/mini-1/heartbeat", null, worker).status());
    assertEquals(
        403, http.send("PUT", "/v1/workers/mini-2/tasks", "{\"tasks\":[]}", worker).status());
    assertEquals(
        204, http.send("PUT", "/v1/workers/mini-1/tasks", "{\"tasks\":[]}", worker).status());
    assertEquals(403, http.send("GET", "/v1/workers/mini-2", null, worker).status());
    assertEquals(
        403, http.send("GET", "/v1/vms", null, worker).status(), "not every worker's assignments");
    assertEquals(403, http.send("GET", "/v1/vms?worker=mini-2", null, worker).status());
    assertEquals(200, http.send("GET", "/v1/vms?worker=mini-1", null, worker).status());
    assertEquals(
        403,
        http.send("POST", "/v1/vms", "{\"name\":\"nope\",\"command\":[\"true\"]}", worker)
            .status());
    assertEquals(403, http.send("DELETE", "/v1/workers/mini-1", null, worker).status());
  }

  @Test
  void tokensAreShownOnceStoredHashedAndStopWorkingWhenTheirAccountGoes() {
    Http.Reply created =
        http.send(
            "POST",
            "/v1/service-accounts",
            "{\"name\":\"short-lived\",\"roles\":[\"compute:read\"]}",
            ADMIN);
    String token = (String) created.map().get("token");
    assertTrue(token.startsWith("rota_") && token.length() > 40);
    assertFalse(
        http.send("GET", "/v1/service-accounts/short-lived", null, ADMIN).body().contains(token));
    assertFalse(http.send("GET", "/v1/service-accounts", null, ADMIN).body().contains("\"token\""));
    assertNotEquals(token, accounts.findById("short-lived").orElseThrow().tokenHash());
    assertEquals(200, http.send("GET", "/v1/cluster", null, token).status());

    assertEquals(
        204, http.send("DELETE", "/v1/service-accounts/short-lived", null, ADMIN).status());
    assertEquals(401, http.send("GET", "/v1/cluster", null, token).status(), "at once");
    http.send(
        "POST", "/v1/service-accounts", "{\"name\":\"twice\",\"roles\":[\"compute:read\"]}", ADMIN);
    assertEquals(
        409,
        http.send(
                "POST",
                "/v1/service-accounts",
                "{\"name\":\"twice\",\"roles\":[\"compute:read\"]}",
                ADMIN)
            .status());
  }

  @Test
  void accountRequestsAreValidated() {
    for (String[] bad :
        new String[][] {
          {"{\"name\":\"a1\",\"roles\":[\"root\"]}", "roles"},
          {"{\"name\":\"a2\",\"roles\":[\"worker\"]}", "worker"},
          {"{\"name\":\"a3\",\"roles\":[\"compute:read\"],\"worker\":\"mini-1\"}", "worker"},
          {"{\"name\":\"A_4\",\"roles\":[\"compute:read\"]}", "name"},
          {"{\"name\":\"a5\",\"roles\":[]}", "roles"},
          {
            "{\"name\":\"a6\",\"namespaceRoles\":{\"default\":[\"admin:write\"]}}", "namespaceRoles"
          },
          {
            "{\"name\":\"a7\",\"namespaceRoles\":{\"nowhere\":[\"compute:read\"]}}",
            "namespaceRoles.nowhere"
          },
          {"{\"name\":\"a8\",\"namespaceRoles\":{\"default\":[]}}", "namespaceRoles"},
          {"{\"name\":\"a9\",\"namespaceRoles\":{}}", "roles"}
        }) {
      Http.Reply r = http.send("POST", "/v1/service-accounts", bad[0], ADMIN);
      assertEquals(400, r.status(), bad[0] + " -> " + r);
      assertTrue(r.detail().contains(bad[1]), r.detail());
    }
  }
}
