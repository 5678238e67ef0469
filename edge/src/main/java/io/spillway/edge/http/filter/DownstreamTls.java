package io.spillway.edge.http.filter;

import io.netty.channel.ChannelPipeline;
import io.netty.handler.ssl.SslHandler;
import java.security.cert.Certificate;
import java.security.cert.CertificateParsingException;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import javax.net.ssl.SSLPeerUnverifiedException;
import javax.net.ssl.SSLSession;
import javax.security.auth.x500.X500Principal;

/**
 * What a TLS downstream connection says about its client, read once per connection after the
 * handshake (Envoy's {@code Ssl::ConnectionInfo}, the part filters use): the peer certificate's
 * URI and DNS subject alternative names and its subject (RFC 2253, as Envoy prints it). A client
 * that sent no certificate has none of them; the connection is still TLS.
 *
 * @param uriSans the URI SANs of the client certificate, in certificate order
 * @param dnsSans the DNS SANs
 * @param subject the subject, or "" without a certificate
 */
public record DownstreamTls(List<String> uriSans, List<String> dnsSans, String subject) {

  private static final int SAN_DNS = 2;
  private static final int SAN_URI = 6;

  public DownstreamTls {
    uriSans = List.copyOf(uriSans);
    dnsSans = List.copyOf(dnsSans);
  }

  /** The connection's TLS facts, or null when the pipeline has no TLS (or the handshake is not done). */
  public static DownstreamTls of(ChannelPipeline pipeline) {
    SslHandler tls = pipeline.get(SslHandler.class);
    if (tls == null || !tls.handshakeFuture().isSuccess()) {
      return null;
    }
    return of(tls.engine().getSession());
  }

  static DownstreamTls of(SSLSession session) {
    Certificate[] chain;
    try {
      chain = session.getPeerCertificates();
    } catch (SSLPeerUnverifiedException e) {
      return new DownstreamTls(List.of(), List.of(), "");
    }
    if (chain.length == 0 || !(chain[0] instanceof X509Certificate peer)) {
      return new DownstreamTls(List.of(), List.of(), "");
    }
    return of(peer);
  }

  /** The facts of one client certificate. */
  public static DownstreamTls of(X509Certificate peer) {
    List<String> uris = new ArrayList<>();
    List<String> dns = new ArrayList<>();
    try {
      Collection<List<?>> sans = peer.getSubjectAlternativeNames();
      if (sans != null) {
        for (List<?> san : sans) {
          if (san.size() >= 2 && san.get(0) instanceof Integer type && san.get(1) instanceof String value) {
            if (type == SAN_URI) {
              uris.add(value);
            } else if (type == SAN_DNS) {
              dns.add(value);
            }
          }
        }
      }
    } catch (CertificateParsingException e) {
      // Unreadable SANs: the subject alone identifies the client, as when there are none.
    }
    return new DownstreamTls(uris, dns, peer.getSubjectX500Principal().getName(X500Principal.RFC2253));
  }
}
