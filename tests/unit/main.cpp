#define BOOST_TEST_MODULE keeper unit tests
#include <boost/test/unit_test.hpp>
