"""The daily question in the database: configurations, posts and their lifecycle, what the
choice of a question reads, settling a day, and the numbers of `/daily stats`."""
