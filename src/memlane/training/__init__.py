"""Training the offline models from the labelled data in the repository (``memlane train``)."""
