# Licensed to the Apache Software Foundation (ASF) under one
# or more contributor license agreements.  See the NOTICE file
# distributed with this work for additional information
# regarding copyright ownership.  The ASF licenses this file
# to you under the Apache License, Version 2.0 (the
# "License"); you may not use this file except in compliance
# with the License.  You may obtain a copy of the License at
#
#   http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing,
# software distributed under the License is distributed on an
# "AS IS" BASIS, WITHOUT WARRANTIES OR CONDITIONS OF ANY
# KIND, either express or implied.  See the License for the
# specific language governing permissions and limitations
# under the License.

# pylint: disable=wildcard-import
"""Gluon Estimator Module: MXNet 1.9.1's ``python/mxnet/gluon/contrib/estimator/``, ported unmodified
(Apache-2.0) but for the module docstrings."""
from . import estimator  # noqa: F401
from . import event_handler  # noqa: F401
from . import batch_processor  # noqa: F401
from .estimator import *
from .event_handler import *
from .batch_processor import *
