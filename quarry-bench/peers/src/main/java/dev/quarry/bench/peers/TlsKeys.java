package dev.quarry.bench.peers;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import javax.net.ssl.KeyManagerFactory;

/** Loads a peer's TLS key and certificate from its {@link PeerOptions.Tls} keystore. Stateless. */
final class TlsKeys {
    private TlsKeys() {}

    /**
     * @param tls the keystore and its password
     * @return a key manager factory initialised with the keystore's key
     * @throws IOException if the file cannot be read (or is not a keystore), naming it
     * @throws GeneralSecurityException if the key cannot be recovered with the password
     */
    static KeyManagerFactory keyManagerFactory(PeerOptions.Tls tls) throws IOException, GeneralSecurityException {
        char[] password = tls.password().toCharArray();
        KeyStore store = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(tls.keystore())) {
            store.load(in, password);
        } catch (IOException e) {
            throw new IOException("cannot read the keystore " + tls.keystore() + ": " + e.getMessage(), e);
        }
        KeyManagerFactory factory = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        factory.init(store, password);
        return factory;
    }
}
