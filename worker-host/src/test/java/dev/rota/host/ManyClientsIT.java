package dev.rota.host;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A thousand clients at once on loopback, ten tokens among them, each sending five requests (a
 * create, three reads, the cluster) the moment all are ready, against a dev host with auth on:
 * every request is answered, each with what it asked for or a 429 problem with Retry-After (a token
 * past its rate, the host past the requests it takes at once), never a 5xx or a dropped connection;
 * every VM acknowledged is stored and none refused is.
 */
class ManyClientsIT {
  private static final String ADMIN = "many-admin-" + "0123456789abcdef0123";
  private static final int CLIENTS = 1000;
  private static final int TOKENS = 10;

  record Answer(String call, String vm, RotaClient.Reply reply) {}

  @Test
  void aThousandClientsAtOnceAreAnsweredWithNothingButWhatTheyAskedOr429() throws Exception {
    Path work = ProductionStack.folder("many-clients");
    int http = FreePorts.next();
    Map<String, String> env = JarProcess.guardedDev(http, work.resolve("data"), ADMIN);
    env.put("ROTA_DEV_AGENT_RESOURCES", "cpu=10000,memory=10000000");
    try (JarProcess host = JarProcess.dev("many-clients", env, work)) {
      host.start().awaitOutput("  Data ");
      String base = "http://127.0.0.1:" + http;
      RotaClient admin = new RotaClient(base, ADMIN);
      List<RotaClient> users = new ArrayList<>();
      for (int t = 0; t < TOKENS; t++) {
        RotaClient.Reply account =
            admin.api(
                "POST",
                "/v1/service-accounts",
                "{\"name\":\"user-" + t + "\",\"roles\":[\"compute:read\",\"compute:write\"]}");
        assertEquals(201, account.status(), account.body());
        users.add(new RotaClient(base, (String) account.map().get("token")));
      }

      Queue<Answer> answers = new ConcurrentLinkedQueue<>();
      Queue<Throwable> failures = new ConcurrentLinkedQueue<>();
      CountDownLatch ready = new CountDownLatch(CLIENTS);
      CountDownLatch go = new CountDownLatch(1);
      ExecutorService clients = Executors.newFixedThreadPool(CLIENTS);
      for (int c = 0; c < CLIENTS; c++) {
        RotaClient api = users.get(c % TOKENS);
        String vm = "many-" + c;
        clients.submit(
            () -> {
              ready.countDown();
              try {
                go.await();
                answers.add(
                    new Answer(
                        "create",
                        vm,
                        api.api(
                            "POST",
                            "/v1/vms",
                            "{\"name\":\"" + vm + "\",\"runtime\":\"synthetic\"}")));
                answers.add(new Answer("list", vm, api.api("GET", "/v1/vms?limit=5", null)));
                answers.add(new Answer("get", vm, api.api("GET", "/v1/vms/" + vm, null)));
                answers.add(new Answer("workers", vm, api.api("GET", "/v1/workers", null)));
                answers.add(new Answer("cluster", vm, api.api("GET", "/v1/cluster", null)));
              } catch (Throwable t) {
                failures.add(t);
              }
              return null;
            });
      }
      assertTrue(ready.await(60, TimeUnit.SECONDS), "all clients ready");
      go.countDown();
      clients.shutdown();
      assertTrue(
          clients.awaitTermination(JarProcess.PATIENCE.toSeconds(), TimeUnit.SECONDS),
          "every client done");

      assertTrue(
          failures.isEmpty(),
          failures.size() + " clients met an error: " + failures.stream().limit(3).toList());
      assertEquals(CLIENTS * 5, answers.size());
      Map<Integer, Integer> byStatus = new TreeMap<>();
      Set<String> acked = new HashSet<>();
      Set<String> refused = new HashSet<>();
      for (Answer a : answers) {
        int status = a.reply().status();
        byStatus.merge(status, 1, Integer::sum);
        if (status == 429) {
          assertTrue(a.reply().problem(), a + " a problem");
          assertTrue(
              a.reply().header("Retry-After").matches("[1-9][0-9]*"), a + " says when to retry");
        } else {
          boolean expected =
              switch (a.call()) {
                case "create" -> status == 201;
                case "get" -> status == 200 || status == 404; // 404: its create was refused
                default -> status == 200;
              };
          assertTrue(expected, a.call() + " " + a.vm() + ": " + status + " " + a.reply().body());
        }
        if (a.call().equals("create")) {
          (status == 201 ? acked : refused).add(a.vm());
        }
      }
      Set<String> stored = storedVms(admin);
      assertTrue(stored.containsAll(acked), "every acknowledged VM is stored");
      refused.forEach(
          vm -> assertTrue(!stored.contains(vm), vm + " was refused and is not stored"));
      String log = host.output();
      int error = log.indexOf("level=ERROR");
      assertTrue(
          error < 0,
          "the host logged an error: "
              + log.substring(Math.max(0, error), Math.min(log.length(), error + 3000)));
      System.out.printf(
          "%d clients x 5 requests: answers by status %s; %d VMs acknowledged%n",
          CLIENTS, byStatus, acked.size());
    }
  }

  /** Every VM's name, page by page. */
  private static Set<String> storedVms(RotaClient admin) {
    Set<String> names = new HashSet<>();
    String cursor = null;
    do {
      RotaClient.Reply page =
          admin.api(
              "GET", "/v1/vms?limit=1000" + (cursor == null ? "" : "&cursor=" + cursor), null);
      assertEquals(200, page.status(), page.body());
      @SuppressWarnings("unchecked")
      List<Map<String, Object>> items = (List<Map<String, Object>>) page.map().get("items");
      items.forEach(vm -> names.add((String) vm.get("name")));
      cursor = (String) page.map().get("nextCursor");
    } while (cursor != null);
    return names;
  }
}
