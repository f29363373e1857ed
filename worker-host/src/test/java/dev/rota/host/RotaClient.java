package dev.rota.host;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/** The HTTP a user (or script) sends Rota's API, with an optional bearer token. */
final class RotaClient {
  private final HttpClient http;
  private final ObjectMapper json = new ObjectMapper();
  private final String base;
  private final String token;

  RotaClient(String base, String token) {
    this(base, token, null);
  }

  /** With {@code tls}, what an HTTPS API is trusted by. */
  RotaClient(String base, String token, javax.net.ssl.SSLContext tls) {
    this.base = base;
    this.token = token;
    HttpClient.Builder client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5));
    this.http = (tls == null ? client : client.sslContext(tls)).build();
  }

  record Reply(
      int status, String body, Map<String, Object> map, java.net.http.HttpHeaders headers) {
    String header(String name) {
      return headers.firstValue(name).orElse("");
    }

    String contentType() {
      return header("Content-Type");
    }

    /** An error answered as the API promises: a problem, as JSON. */
    boolean problem() {
      return contentType().startsWith("application/problem+json") && map.containsKey("detail");
    }
  }

  Reply send(String method, String url, String body, String bearer) {
    try {
      HttpRequest.Builder b =
          HttpRequest.newBuilder(URI.create(url))
              .timeout(Duration.ofSeconds(30))
              .method(
                  method,
                  body == null
                      ? HttpRequest.BodyPublishers.noBody()
                      : HttpRequest.BodyPublishers.ofString(body))
              .header("Content-Type", "application/json");
      if (bearer != null) {
        b.header("Authorization", "Bearer " + bearer);
      }
      HttpResponse<String> r = http.send(b.build(), HttpResponse.BodyHandlers.ofString());
      @SuppressWarnings("unchecked")
      Map<String, Object> map =
          r.body().startsWith("{") ? json.readValue(r.body(), Map.class) : Map.of();
      return new Reply(r.statusCode(), r.body(), map, r.headers());
    } catch (Exception e) {
      throw new AssertionError(method + " " + url, e);
    }
  }

  String base() {
    return base;
  }

  /** A call to this client's API with its token. */
  Reply api(String method, String path, String body) {
    return send(method, base + path, body, token);
  }

  Map<String, Object> vm(String name) {
    return api("GET", "/v1/vms/" + name, null).map();
  }

  @SuppressWarnings("unchecked")
  List<Map<String, Object>> items(String path) {
    return (List<Map<String, Object>>) api("GET", path, null).map().get("items");
  }

  /** Every item of a list, page after page ({@code path} has its query, without a cursor). */
  @SuppressWarnings("unchecked")
  List<Map<String, Object>> allItems(String path) {
    List<Map<String, Object>> all = new java.util.ArrayList<>();
    String cursor = null;
    do {
      String page =
          path
              + (cursor == null
                  ? ""
                  : "&cursor="
                      + java.net.URLEncoder.encode(
                          cursor, java.nio.charset.StandardCharsets.UTF_8));
      Map<String, Object> answer = api("GET", page, null).map();
      all.addAll((List<Map<String, Object>>) answer.get("items"));
      cursor = (String) answer.get("nextCursor");
    } while (cursor != null);
    return all;
  }

  List<String> eventTypes(String vm) {
    return items("/v1/vms/" + vm + "/events?limit=1000").stream()
        .map(e -> (String) e.get("type"))
        .toList();
  }
}
