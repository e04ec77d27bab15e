/* claims.c — placeholder while being written. */
