#define BOOST_TEST_MODULE keeper database tests
#include <boost/test/unit_test.hpp>
