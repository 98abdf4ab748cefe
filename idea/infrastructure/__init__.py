"""Adapters behind the application ports: files, PTYs, sockets, clocks. No Qt."""
