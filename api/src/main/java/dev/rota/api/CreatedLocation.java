package dev.rota.api;

import io.micronaut.http.HttpHeaders;
import io.micronaut.http.HttpMethod;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpStatus;
import io.micronaut.http.MutableHttpResponse;
import io.micronaut.http.annotation.ResponseFilter;
import io.micronaut.http.annotation.ServerFilter;

/**
 * A 201 to a {@code POST} on a collection says where what it made is read, as HTTP has it: {@code
 * Location: /v1/vms/build-42}. Only for one resource made (a batch has no one place).
 */
@ServerFilter("/v1/**")
public class CreatedLocation {
  @ResponseFilter
  public void locate(HttpRequest<?> request, MutableHttpResponse<?> response) {
    if (request.getMethod() == HttpMethod.POST
        && response.getStatus() == HttpStatus.CREATED
        && !response.getHeaders().contains(HttpHeaders.LOCATION)
        && response.getBody().orElse(null) instanceof Named made) {
      response.header(HttpHeaders.LOCATION, request.getPath() + "/" + made.name());
    }
  }
}
