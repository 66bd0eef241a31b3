"""The personal profile: one SQLite file per profile, numbered migrations, one connection per thread."""
