# foreign_client.py HOST PORT — what a client that is not a member sees at a door on another host:
# a plain-HTTP request, then a TLS handshake trusting only the system's authorities. Prints one
# line for each: "plain: answered" or "plain: closed"; "tls: verified" or "tls: refused".
import socket
import ssl
import sys

host, port = sys.argv[1], int(sys.argv[2])

with socket.create_connection((host, port), 5) as s:
    s.sendall(b"GET /.well-known/agent-card.json HTTP/1.1\r\nHost: door\r\n\r\n")
    s.settimeout(15)
    data = b""
    try:
        while True:
            chunk = s.recv(4096)
            if not chunk:
                break
            data += chunk
    except OSError:
        pass
print("plain: " + ("answered" if data.startswith(b"HTTP/") else "closed"))

try:
    with socket.create_connection((host, port), 5) as raw:
        with ssl.create_default_context().wrap_socket(raw, server_hostname=host):
            print("tls: verified")
except ssl.SSLCertVerificationError:
    print("tls: refused")
