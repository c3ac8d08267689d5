"""One module per CLI command; each defines ``add_parser(subparsers)``. See ``registry``."""
