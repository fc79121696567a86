"""The long-running device program: crash-safe game journal, event loop, systemd integration."""
