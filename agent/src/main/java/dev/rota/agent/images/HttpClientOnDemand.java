package dev.rota.agent.images;

import java.net.http.HttpClient;
import java.time.Duration;

/**
 * An HTTP client made when first used. Each JDK client keeps a selector thread for as long as it
 * lives, and most agents never fetch an image: dev mode's thousand agents held two thousand such
 * threads, which idle cost system time (as {@link ControllerClient#httpClient} found for its own).
 * An image's server is given 30 s to accept a connection.
 */
final class HttpClientOnDemand {
  private final HttpClient.Redirect redirects;
  private volatile HttpClient client;

  HttpClientOnDemand(HttpClient.Redirect redirects) {
    this.redirects = redirects;
  }

  HttpClient get() {
    HttpClient made = client;
    if (made == null) {
      synchronized (this) {
        made = client;
        if (made == null) {
          made =
              HttpClient.newBuilder()
                  .connectTimeout(Duration.ofSeconds(30))
                  .followRedirects(redirects)
                  .build();
          client = made;
        }
      }
    }
    return made;
  }
}
